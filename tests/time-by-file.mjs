// A node:test reporter that prints, once every file has run, the time each test file's
// top-level tests took (their durations summed), longest first: where `npm test` spends its
// time. scripts/test.sh runs it beside the TAP reporter.
export default async function* timeByFile(source) {
  const files = new Map();
  for await (const { type, data } of source) {
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && data.file) {
      const e = files.get(data.file) ?? { ms: 0, tests: 0 };
      e.ms += data.details.duration_ms;
      e.tests += 1;
      files.set(data.file, e);
    }
  }
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((sum, [, e]) => sum + e.ms, 0);
  yield `# test time by file (top-level tests summed): ${(total / 1000).toFixed(1)} s in ${rows.length} files\n`;
  for (const [file, e] of rows) {
    yield `# ${(e.ms / 1000).toFixed(1).padStart(7)} s  ${String(e.tests).padStart(3)} tests  ${file.replace(/^.*?\/tests\//, 'tests/')}\n`;
  }
}
