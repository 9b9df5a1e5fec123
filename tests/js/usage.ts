// Type-checked (never run) by types.test.mjs with tsc --noEmit --strict: how a user of the
// package writes against dist/kvcalc.d.ts, imported by the package's own name.
import { load, size, KvCalcError, wasmUrl } from 'kvcalc';
import { check, gpuPresets, model, table } from 'kvcalc';
import type { CheckOptions, CheckReport, Formula, KvModel, Series, SeriesReport, SeriesVariant, GpuPreset, KvCalc, LayerGroup, Preset, SizeFigures, SizeOptions, SizeReport,
  TableReport, Term, GgufProgress, GgufRead, GgufSource, CacheType, Engine, LlamacppCheckReport, LlamacppLayerGroup, LlamacppMemory, LlamacppSizeReport } from 'kvcalc';

declare const caught: KvCalcError;
declare function readBytes(url: URL): Uint8Array; // readFileSync in Node (no @types/node here)

async function main(): Promise<void> {
  const kv: KvCalc = await load({ wasmBinary: readBytes(wasmUrl) });
  await load({ wasmBinary: new ArrayBuffer(8) });
  await load({ wasmUrl: '/static/kvcalc_core.wasm' });
  await load();
  const rows: number = kv.table(['Qwen/Qwen3-8B']).rows.length;

  const options: SizeOptions = { context: 4096, batch: 8, kvDtype: 'fp8', tp: 2, accounting: 'vllm', blockSize: 16,
    maxNumBatchedTokens: 8192, sharedPrefix: 512 };
  const report: SizeReport = kv.size('Qwen/Qwen2.5-7B-Instruct', options);
  const perGpu: number = report.kvBytesPerGpu;
  const max: number | undefined = report.maxContext?.value;
  const total: number = report.layers.total + report.layers.sliding_window;
  report.warnings.forEach((w) => console.log(w.field, w.message));

  for (const g of report.groups) describe(g);
  kv.size({ num_hidden_layers: 32, num_attention_heads: 32, hidden_size: 4096 });
  size('{"num_hidden_layers": 2}');

  const f: Formula = kv.formula('deepseek-ai/DeepSeek-V3', { kvDtype: 'fp8_ds_mla' });
  const terms: Term[] = f.groups.flatMap((g) => g.terms);
  const rendered: string = terms.map((t) => `${t.name} ${t.value} (${t.source})`).join(' x ');
  const window: number | undefined = f.groups[0].window?.value;

  const checkOptions: CheckOptions = { maxContext: 1_048_576, poolTokens: 681_280, concurrency: 4 };
  const verdict: CheckReport = kv.check('Qwen/Qwen3-8B', checkOptions);
  const fits: boolean = verdict.fits;
  const advice: string = verdict.advice.join(' ');
  const steps: string[] | undefined = kv.check('Qwen/Qwen3-8B', { maxContext: 32_768, gpu: 'h100-80gb',
    gpuMemoryUtilization: 0.9, engine: 'vllm' }).pool?.steps;
  const fromLog = check('Qwen/Qwen3-8B', { maxContext: 32_768, engineLog: 'GPU KV cache size: 681,280 tokens' });
  const understood: number = fromLog.log?.understood.length ?? 0;
  const followed: string = check('Qwen/Qwen3-8B', { engineLog: 'GPU KV cache size: 681,280 tokens', maxContext: 32_768,
    verdictFrom: 'kvcalc' }).crossChecks.filter((c) => !c.agree).map((c) => c.text).join(' ') + (fromLog.verdictFrom ?? '');
  const t: TableReport = kv.table(['Qwen/Qwen3-8B', { num_hidden_layers: 2 }], { contexts: [4096, 32_768], format: 'md' });
  const cells: (number | null)[] = t.rows[0].kvBytes;
  const markdown: string | undefined = table(['Qwen/Qwen3-8B']).text;
  const gpus: GpuPreset[] = gpuPresets();
  console.log(fits, advice, steps, understood, followed, cells, markdown, gpus[0].memoryBytes, kv.gpuPresets().length);

  // One model read once, evaluated many times.
  const mistral: KvModel = kv.model('mistralai/Mistral-7B-v0.1');
  const at4k: number = mistral.size({ context: 4096 }).kvBytes;
  const live: SizeFigures = mistral.figures({ context: 4096, tp: 2 });
  console.log(live.kvBytesPerGpu, live.accounting);
  const chart: SeriesReport = mistral.series({ accounting: 'vllm' }, { contexts: [4096, 32_768], kvDtypes: ['auto', 'fp8'] });
  const variants: SeriesVariant[] = [{ kvHeads: 1 }, { kvHeads: 8 }, 'mla', 'model'];
  const gqa: Series[] = mistral.series({ context: 4096 }, { variants }).series;
  const perToken: (number | null)[] = gqa.map((x) => (x.error ? null : x.bytesPerToken));
  const first: number | undefined = chart.series[0].kvBytes?.[0];
  const fitsThere: boolean = model('Qwen/Qwen3-8B').check({ maxContext: 32_768, poolTokens: 681_280 }).fits;
  console.log(at4k, perToken, first, fitsThere, mistral.formula().groups.length);

  const presets: Preset[] = kv.presets();
  const text: string = kv.presetConfig(presets[0].id);
  const figure: Promise<string> = kv.svg(presets[0].id, { chart: 'check', poolTokens: 681280, maxContext: 1048576, kvDtype: 'fp8' });
  void figure;
  // A picked .gguf: its metadata read in slices, cancellable, then sized as a config text.
  const picked = new File([new Uint8Array(4)], 'model.gguf');
  const controller = new AbortController();
  const onProgress = (p: GgufProgress): void => console.log(p.key, p.index, p.count, p.offset / p.size, p.bytesRead, p.done);
  const read: Promise<GgufRead> = kv.readGguf(picked, { onProgress, signal: controller.signal });
  read.then((g) => console.log(g.name, g.metadataBytes, g.bytesRead, kv.size(g.text).bytesPerToken)).catch((e: unknown) => {
    if (e instanceof KvCalcError && (e.code === 'cancelled' || e.code === 'malformed_gguf')) console.log(e.field, e.message);
  });
  controller.abort();
  // A file elsewhere (on a server that answers Range requests), read through a source.
  const remote: GgufSource = {
    size: 8_589_934_592,
    name: 'model.gguf',
    read: (start, end, signal) => fetch('/model.gguf', { headers: { Range: `bytes=${start}-${end - 1}` }, signal }).then((r) => r.arrayBuffer()),
  };
  void kv.readGguf(remote, { signal: controller.signal });

  // llama.cpp: its engine and llama-server's options give its report, memory object by object.
  const llama: LlamacppSizeReport = kv.size('openai/gpt-oss-20b', { engine: 'llamacpp', context: 131_072, parallel: 1,
    cacheTypeK: 'q8_0', cacheTypeV: 'q8_0', flashAttn: 'on', swaFull: false, ubatchSize: 512, kvUnified: false, llamacppBuild: 10_573 });
  const allocated: number = llama.llamacpp.bytes + llama.sequenceBytesLlamacpp;
  const lines: string[] = llama.llamacpp.memory.map((m: LlamacppMemory) => `${m.cache} ${m.cells} ${m.cellsRule}: ${m.logLine}`);
  const q8: number = llama.llamacpp.cacheTypeKBlockBytes / llama.llamacpp.cacheTypeKBlock;
  for (const g of llama.groups) describeLlamacpp(g);
  const ollama: LlamacppSizeReport = kv.model('Qwen/Qwen3-8B').size({ engine: 'ollama', context: 8192, parallel: 2, ollamaVersion: '0.33.0' });
  const studio = kv.formula('openai/gpt-oss-20b', { engine: 'lmstudio' });
  const swaFull: boolean = studio.report.llamacpp.swaFull;
  const engine: Engine = Math.random() > 0.5 ? 'vllm' : 'llamacpp';
  const either: SizeReport | LlamacppSizeReport = kv.size('Qwen/Qwen3-8B', { engine });
  const perSlot: number = 'llamacpp' in either ? either.llamacpp.nCtxSeq : either.batch;
  const slot: LlamacppCheckReport = kv.check('Qwen/Qwen3-8B', { engine: 'llamacpp', context: 65_536, maxContext: 32_768 });
  const types: CacheType[] = ['q8_0', 'q4_0'];
  const stepped = kv.model('openai/gpt-oss-20b').series({ engine: 'llamacpp' }, { contexts: [1024, 1025], kvDtypes: types });
  const llamaFigures: number = kv.model('openai/gpt-oss-20b').figures({ engine: 'llamacpp' }).sequenceBytesLlamacpp;
  const byHost: string | undefined = kv.table(['Qwen/Qwen3-8B'], { engine: 'ollama', parallel: 2, cacheTypeK: 'q8_0' }).engine;
  console.log(allocated, lines, q8, ollama.llamacpp.ollamaVersion, swaFull, perSlot, slot.slotContext, slot.fits, stepped.contexts,
    llamaFigures, byHost);

  try {
    kv.size('{');
  } catch (e) {
    if (e instanceof KvCalcError) {
      const where: string = e.line !== undefined ? `${e.line}:${e.column}` : e.field;
      if (e.code === 'malformed_json' || e.code === 'not_loaded') console.log(where, e.message);
    }
  }
  console.log(perGpu, max, total, rendered, window, text, rows);

  // What the types refuse:
  // @ts-expect-error kv_dtype is kvDtype in JS
  kv.size('Qwen/Qwen3-8B', { kv_dtype: 'fp8' });
  // @ts-expect-error not a KV dtype
  kv.size('Qwen/Qwen3-8B', { kvDtype: 'fp7' });
  // @ts-expect-error not an accounting
  kv.size('Qwen/Qwen3-8B', { accounting: 'paged' });
  // @ts-expect-error check needs its options (the pool and the context)
  kv.check('Qwen/Qwen3-8B');
  // @ts-expect-error table takes a list of configs
  kv.table('Qwen/Qwen3-8B');
  // @ts-expect-error a number is not a config
  kv.size(7);
  // @ts-expect-error reports are camelCase
  console.log(report.bytes_per_token);
  // @ts-expect-error there is one wasm module: no core to choose
  await load({ core: 'size' });
  // @ts-expect-error axes are camelCase
  mistral.series({}, { kv_dtypes: ['fp8'] });
  // @ts-expect-error a variant is 'model', 'mla' or { kvHeads }
  mistral.series({}, { variants: ['gqa'] });
  // @ts-expect-error a model's check needs its options
  mistral.check();
  // @ts-expect-error the heap is not public API
  kv.heapStats();
  // @ts-expect-error an error code the API never uses
  if (caught.code === 'oops') console.log();
  // @ts-expect-error not an engine
  kv.size('Qwen/Qwen3-8B', { engine: 'tgi' });
  // @ts-expect-error not a cache type llama.cpp takes
  kv.size('Qwen/Qwen3-8B', { engine: 'llamacpp', cacheTypeK: 'q2_k' });
  // @ts-expect-error a llama.cpp report has no batch
  console.log(llama.batch);
  // @ts-expect-error a vLLM report has no llama.cpp allocation
  console.log(report.llamacpp);
}

function describeLlamacpp(g: LlamacppLayerGroup): string {
  switch (g.kind) {
    case 'mla':
      return `${g.layers} x (${g.kBytesPerCell} B K + ${g.vBytesPerCell} B V) in the ${g.cache} cache, latent ${g.latentDim.value}`;
    case 'linear_state':
      return `${g.mixer}: R ${g.rBytesPerSequence} B + S ${g.sBytesPerSequence} B a sequence`;
    case 'no_cache':
      return 'no cache';
    default:
      return `${g.layers} x (${g.kWidth} values of K, ${g.vWidth} of V)${g.window ? ` up to ${g.window.value}` : ''}`;
  }
}

function describe(g: LayerGroup): string {
  switch (g.kind) {
    case 'mla':
      return `${g.layers} x ${g.latentDim.value}`;
    case 'linear_state':
      return `${g.mixer}: ${g.stateBytesLayer} B per layer`;
    case 'no_cache':
      return 'no cache';
    default:
      return `${g.kvHeads.value} x ${g.headDim.value} x ${g.vHeadDim.value}${g.window ? ` up to ${g.window.value}` : ''}`;
  }
}

void main();

// The element: typed through the tag map, its properties and its event.
import { define, KvCalcElement } from 'kvcalc';
import type { KvCalcChangeEvent } from 'kvcalc';
function useElement(): void {
  const el = document.createElement('kv-calc');
  const same: KvCalcElement = el;
  el.context = 131072;
  el.kvDtype = 'fp8';
  el.view = 'check';
  el.models = ['Qwen/Qwen2.5-7B-Instruct'];
  el.loading = 'eager';
  el.engine = 'ollama';
  el.parallel = 2;
  el.cacheTypeK = 'q8_0';
  el.flashAttn = 'on';
  el.swaFull = true;
  el.llamacppBuild = 6000;
  el.addEventListener('kvcalc-change', (e: KvCalcChangeEvent) => {
    const bytes: number = e.result.kvBytes;
    const cells: number | undefined = 'llamacpp' in e.result ? e.result.llamacpp.nCtxSeq : undefined;
    void cells;
    const fits: boolean | undefined = e.check?.fits;
    void bytes; void fits;
  });
  void same.updateComplete.then((done: boolean) => done);
  const cls = define('my-kv-calc');
  void cls;
}
void useElement;

// The build plugins' Node API: kvcalc/bake's bakeSite and the Docusaurus plugin.
import { bake, bakeSite, fallbackHtml, stylesheetText, writeStylesheet } from 'kvcalc/bake';
import kvcalcDocusaurus from 'kvcalc/docusaurus';
import kvcalcVite from 'kvcalc/vite';

async function bakeBuiltSite(): Promise<number> {
  const { files, changed, count }: { files: number; changed: number; count: number } = await bakeSite('build', { force: false });
  const plugin = kvcalcDocusaurus({}, { force: true });
  const name: string = plugin.name;
  await plugin.postBuild({ outDir: 'build' });
  void name;
  // The href of kvcalc.css given; reserve, no longer needed, still accepted (and ignored).
  await bakeSite('build', { stylesheet: '/kvcalc.css', reserve: true, chromium: '/usr/bin/chromium' });
  await kvcalcDocusaurus({}, { reserve: true }).postBuild({ outDir: 'build' });
  const vite = kvcalcVite({ force: true, reserve: true });
  vite.generateBundle();
  const page: string = await vite.transformIndexHtml.handler('<kv-calc></kv-calc>', { filename: 'index.html' });
  // One page: where its baked renders link kvcalc.css from, and the file written at a root.
  const r = await bake('<kv-calc></kv-calc>', { file: 'build/index.html', root: 'build' });
  const sheet: { href: string; rootCopy: boolean } | null = r.stylesheet;
  if (sheet?.rootCopy) writeStylesheet('build');
  const css: string = stylesheetText();
  const words: string = await fallbackHtml({ model: 'Qwen/Qwen3-8B' }, undefined, { stylesheet: '/kvcalc.css', lang: 'de' });
  return files + changed + count + page.length + css.length + words.length;
}
void bakeBuiltSite;
