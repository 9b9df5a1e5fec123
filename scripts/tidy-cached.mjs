// clang-tidy over the given sources, each translation unit's clean verdict kept in the user's
// cache (KVCALC_CACHE_DIR: scripts/cache-dir.sh) under a key made of everything clang-tidy reads for it:
// clang-tidy's and clang's versions, the unit's path and compile command, the .clang-tidy and
// .clang-format files of its folder and every folder above, and every file the preprocessor
// opens for it (`clang++ -M` with the same command: its sources and headers, system headers
// included), each by its path and the SHA-256 of its content. A unit whose key has a stored
// clean verdict is not checked again; any change to any of those inputs is a new key, so it
// is checked. Only clean verdicts are stored: a unit with findings is checked, and its findings
// printed, on every run.
//
//   node scripts/tidy-cached.mjs COMPILE_COMMANDS_DIR JOBS FILE...   (scripts/lint.sh runs it)
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const [commandsDir, jobsArg, ...files] = process.argv.slice(2);
const jobs = Math.max(1, Number(jobsArg) || 1);
if (!process.env.KVCALC_CACHE_DIR) throw new Error('KVCALC_CACHE_DIR is not set (scripts/lint.sh sets it)');
const verdicts = join(process.env.KVCALC_CACHE_DIR, 'clang-tidy');
mkdirSync(verdicts, { recursive: true });

const commands = new Map(JSON.parse(readFileSync(join(commandsDir, 'compile_commands.json'), 'utf8'))
  .map((e) => [resolve(e.directory, e.file), e]));
const sha = (data) => createHash('sha256').update(data).digest('hex');
const fileHashes = new Map();
const hashOf = (path) => {
  if (!fileHashes.has(path)) fileHashes.set(path, existsSync(path) ? sha(readFileSync(path)) : 'absent');
  return fileHashes.get(path);
};
const version = async (tool) => (await run(tool, ['--version'])).stdout;
const tools = `${await version('clang-tidy')}\n${await version('clang++')}`;

// The settings clang-tidy looks for: in the source's folder and every folder above it.
function settingsFiles(source) {
  const found = [];
  for (let dir = dirname(source); ; dir = dirname(dir)) {
    for (const name of ['.clang-tidy', '.clang-format', '_clang-format']) {
      const path = join(dir, name);
      if (existsSync(path)) found.push(path);
    }
    if (dirname(dir) === dir) return found;
  }
}

// The files clang's preprocessor opens for the unit, as a make rule ("out.o: a.cpp b.hpp \").
async function dependencies(entry) {
  // The command as the build ran it (POSIX-quoted by CMake), with clang++ as the compiler, no
  // output file and -M (preprocess only, list every included file, system headers too).
  const command = entry.command.replace(/^\S+/, 'clang++').replace(/ -o \S+/, '').replace(/ -c /, ' ');
  const { stdout } = await run('sh', ['-c', `${command} -M -MT unit`], { cwd: entry.directory, maxBuffer: 64 << 20 });
  return stdout.replace(/^unit:/, '').replace(/\\\n/g, ' ').trim().split(/\s+/)
    .map((p) => resolve(entry.directory, p));
}

async function keyOf(source) {
  const entry = commands.get(source);
  if (!entry) throw new Error(`${source} has no compile command in ${commandsDir}/compile_commands.json`);
  const inputs = [...settingsFiles(source), ...new Set(await dependencies(entry))];
  const text = [tools, source, entry.directory, entry.command, ...inputs.map((p) => `${p} ${hashOf(p)}`)].join('\n');
  return sha(text);
}

// At most `jobs` at a time, results in the order of items.
async function pool(items, fn) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  }));
  return results;
}

const sources = files.map((f) => resolve(f));
const keys = await pool(sources, keyOf);
const toCheck = sources.filter((s, i) => !existsSync(join(verdicts, keys[i])));
let failed = 0;
await pool(toCheck, async (source) => {
  const key = keys[sources.indexOf(source)];
  let output;
  let status = 0;
  try {
    const r = await run('clang-tidy', ['-p', commandsDir, '--quiet', source], { maxBuffer: 64 << 20 });
    output = r.stdout + r.stderr;
  } catch (e) {
    output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    status = e.code ?? 1;
  }
  const shown = output.split('\n').filter((l) => l && !/^[0-9]+ warnings? (and [0-9]+ errors? )?generated/.test(l));
  if (status !== 0 || shown.some((l) => /(warning|error):/.test(l))) {
    failed += 1;
    process.stdout.write(`${shown.join('\n')}\n`);
  } else {
    writeFileSync(join(verdicts, key), `${source}\nclean ${new Date().toISOString()}\n`);
  }
});
const reused = sources.length - toCheck.length;
console.log(`lint: clang-tidy: ${sources.length} files: ${toCheck.length} checked, ${reused} unchanged since a clean check ` +
  `(their inputs' verdicts in ${verdicts})`);
if (failed) {
  console.log(`lint: clang-tidy found problems in ${failed} files`);
  process.exit(1);
}
