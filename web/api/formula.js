// The formula behind a size report, as terms to render: each term is a factor of one layer
// group's bytes with its value and where that value came from ("head size 128 = hidden_size
// 3584 / num_attention_heads 28"). No arithmetic of its own beyond labelling: every value
// is read from the core's report, and the product of a group's terms is its `bytes`.

const term = (name, value, source) => ({ name, value, source });

function layersTerm(report, group) {
  // One group spanning the whole model: its count is the config's layer count; otherwise
  // the layer plan split the layers.
  const whole = report.groups.length === 1 && group.layers === report.numLayers.value;
  return term('layers', group.layers, whole ? report.numLayers.source : report.layerPlanSource);
}

function groupFormula(report, group, bytesPerElement) {
  const out = { kind: group.kind, name: group.name, layers: group.layers };
  const layers = layersTerm(report, group);
  let terms;
  if (group.kind === 'linear_state') {
    out.per = 'sequence';
    terms = [layers, term('state bytes per layer', group.stateBytesLayer, group.stateSource)];
    out.bytes = group.layers * group.stateBytesLayer;
  } else if (group.kind === 'no_cache') {
    out.per = 'none';
    terms = [];
    out.bytes = 0;
  } else {
    out.per = 'token';
    if (report.llamacpp) {
      // llama.cpp: one cell of one layer, K and V each in its cache type's blocks.
      const a = report.llamacpp;
      const row = (what, width, bytes, type) => `${what} ${bytes} B (${width} values of ${type})`;
      terms = [layers, term('bytes per cell per layer', group.bytesPerTokenLayer,
        `${row('K', group.kWidth, group.kBytesPerCell, a.cacheTypeK)} + ${group.vWidth ? row('V', group.vWidth, group.vBytesPerCell, a.cacheTypeV) : 'no V'}`)];
    } else if (group.indexerBytes) {
      // An indexer's keys beside the layer's cache (DeepSeek-V3.2's MLA, MiniMax-M3's sparse layers): a sum, so
      // the layer's bytes are one term whose source names both parts.
      const cache = group.bytesPerTokenLayer - group.indexerBytes.value;
      const what = group.kind === 'mla' ? 'the latent' : 'K and V';
      terms = [layers, term('bytes per token per layer', group.bytesPerTokenLayer,
        `${cache} B of ${what} + ${group.indexerBytes.value} B of indexer keys (${group.indexerBytes.source})`)];
    } else if (group.kind === 'mla') {
      terms =
        report.kvDtype === 'fp8_ds_mla'
          ? [layers, term('bytes per token per layer', group.bytesPerTokenLayer, report.kvDtypeSource)]
          : [layers, term('latent', group.latentDim.value, group.latentDim.source), bytesPerElement];
    } else {
      const heads = term('KV heads', group.kvHeads.value, group.kvHeads.source);
      terms =
        group.headDim.value === group.vHeadDim.value
          ? [term('K and V', 2, 'one key and one value vector per head'), layers, heads,
             term('head size', group.headDim.value, group.headDim.source), bytesPerElement]
          : [layers, heads,
             term('K + V head sizes', group.headDim.value + group.vHeadDim.value,
                  `${group.headDim.source} + ${group.vHeadDim.source}`),
             bytesPerElement];
    }
    out.bytes = group.layers * group.bytesPerTokenLayer;
    if (group.window) out.window = term('window', group.window.value, group.window.source);
  }
  out.terms = terms;
  out.expression = terms.map((t) => String(t.value)).join(' x ');
  return out;
}

/**
 * @param {object} report  a camelCased size report
 */
export function formulaOf(report) {
  // With a llama.cpp engine, K's cache type (V's may differ: each group's terms have both).
  const a = report.llamacpp;
  const bytesPerElement = a
    ? term('bytes per element', a.cacheTypeKBlockBytes / a.cacheTypeKBlock,
      `K ${a.cacheTypeK}: ${a.cacheTypeKBlockBytes} B per ${a.cacheTypeKBlock} ${a.cacheTypeKBlock === 1 ? 'value' : 'values'}` +
      `, V ${a.cacheTypeV}: ${a.cacheTypeVBlockBytes} B per ${a.cacheTypeVBlock} (${report.kvDtypeSource})`)
    : term('bytes per element', report.kvDtypeBits / 8, report.kvDtypeSource);
  return {
    model: report.model,
    attentionKind: report.attentionKind,
    kvDtype: report.kvDtype,
    bytesPerElement,
    groups: report.groups.map((g) => groupFormula(report, g, bytesPerElement)),
    bytesPerToken: report.bytesPerToken,
    stateBytes: report.stateBytes,
    report,
  };
}
