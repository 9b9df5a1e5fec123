// The bad-input corpus: over 200 distinct inputs, each with the outcome kvcalc must give:
// a structured error with its code (and field), or an answer with the exact figure and,
// where documented, a warning. Run through the CLI (cli.test.mjs) and the wasm module
// (wasm.test.mjs), which must agree on every code.

// A valid base: 2 x 4 layers x 2 KV heads x (256 / 4 = 64) x 2 B = 2,048 B per token.
const base = { num_hidden_layers: 4, hidden_size: 256, num_attention_heads: 4, num_key_value_heads: 2,
  torch_dtype: 'bfloat16', max_position_embeddings: 4096, vocab_size: 1000, intermediate_size: 512 };
const text = (o) => JSON.stringify(o);
// DeciLM / Nemotron-NAS: block_configs, one a layer (no_op layers keep no cache).
const deciBlocks = [{ attention: { n_heads_in_group: 2 } }, { attention: { no_op: true } }, { attention: { n_heads_in_group: 4 } }, { attention: { n_heads_in_group: 1 } }];
const deci = { ...base, architectures: ['DeciLMForCausalLM'], model_type: 'nemotron-nas', block_configs: deciBlocks };
// LFM2: layer_types 'conv' keep a short-convolution state of (conv_L_cache - 1) x conv_dim.
const lfm2 = { ...base, architectures: ['Lfm2ForCausalLM'], model_type: 'lfm2', conv_L_cache: 3, conv_dim: 256,
  layer_types: ['conv', 'full_attention', 'conv', 'full_attention'] };
// Falcon-H1: attention and a Mamba-2 state (mamba_* fields, FalconH1Config defaults) in every layer.
const falconH1 = { ...base, architectures: ['FalconH1ForCausalLM'], model_type: 'falcon_h1', mamba_d_ssm: 512, mamba_n_heads: 8, mamba_d_state: 16 };
// Zamba2: layers_block_type (every layer a Mamba-2 state, 'hybrid' ones also a shared attention cache).
const zamba2 = { ...base, architectures: ['Zamba2ForCausalLM'], model_type: 'zamba2', num_key_value_heads: undefined, layers_block_type: ['mamba', 'hybrid', 'mamba', 'hybrid'], n_mamba_heads: 8 };
// MiniMax-Text-01 / M1: attn_type_list (0 = lightning linear-attention state, 1 = full attention).
const minimax = { ...base, architectures: ['MiniMaxM1ForCausalLM'], model_type: 'minimax_text_01', head_dim: 64, attn_type_list: [0, 1, 0, 1] };
// MiMo-V2: hybrid_layer_pattern (1 = sliding) and the sliding layers' own geometry.
const mimo = { ...base, architectures: ['MiMoV2FlashForCausalLM'], model_type: 'mimo_v2_flash', sliding_window_size: 32,
  swa_num_key_value_heads: 4, swa_head_dim: 64 };
// Qwen2.5-Omni: the thinker's text model, thinker_config.text_config (the base's fields), is what vLLM serves.
const omni = { architectures: ['Qwen2_5OmniModel'], model_type: 'qwen2_5_omni', thinker_config: { text_config: { ...base, use_sliding_window: false } } };
// PLaMo2: mamba_step (attention where i % mamba_step == mamba_step // 2), heads of hidden_size_per_head, Mamba-2 states.
const plamo2 = { ...base, architectures: ['Plamo2ForCausalLM'], model_type: 'plamo2', hidden_size_per_head: 64, mamba_num_heads: 8, mamba_d_state: 16, mamba_d_conv: 4, mamba_step: 2 };
// Bailing linear: every layer_group_size-th layer MLA, the others a lightning state.
const bailing = { ...base, architectures: ['BailingMoeV2_5ForCausalLM'], layer_group_size: 2, kv_lora_rank: 32, qk_rope_head_dim: 16 };
// Looped models: Ouro keeps total_ut_steps full caches a layer, IQuest-LoopCoder one full and loop_num - 1 sliding ones.
const ouro = { ...base, architectures: ['OuroForCausalLM'], model_type: 'ouro', total_ut_steps: 3 };
const iquest = { ...base, architectures: ['IQuestLoopCoderForCausalLM'], model_type: 'iquestloopcoder', loop_num: 3, loop_window_size: 8 };
// openPangu: sink attention (K qk_rope_dim + qk_nope_dim, V v_channels) when param_sink_number > 0 and no MLA.
const pangu = { ...base, architectures: ['PanguProMoEV2ForCausalLM'], param_sink_number: 16, qk_rope_dim: 16, qk_nope_dim: 48, v_channels: 32 };
// HRM-Text: two stacks of num_layers_per_stack layers, a cache per recurrence step (L: H_cycles x L_cycles, H: H_cycles).
const hrm = { ...base, num_hidden_layers: undefined, architectures: ['HrmTextForCausalLM'], model_type: 'hrm_text', num_layers_per_stack: 2, H_cycles: 1, L_cycles: 2 };
// PLaMo3: full attention where (i + 1) % sliding_window_pattern == 0, else a window of window_size (the
// remote Plamo3Config's interleaved_sliding_window).
const plamo3 = { ...base, architectures: ['Plamo3ForCausalLM'], model_type: 'plamo3', head_dim: 64, window_size: 8, sliding_window_pattern: 2 };
// Step-3.5: num_attention_groups KV heads; layer_types 'sliding_attention' slide by sliding_window, and the
// layers of attention_other_setting.attention_type take its geometry.
const step35 = { ...base, architectures: ['Step3p5ForCausalLM'], model_type: 'step3p5', num_key_value_heads: undefined,
  num_attention_groups: 2, sliding_window: 16, layer_types: ['full_attention', 'sliding_attention', 'sliding_attention', 'full_attention'],
  attention_other_setting: { attention_type: 'sliding_attention', num_attention_heads: 8, num_attention_groups: 4, head_dim: 32 } };
// LongCat-Flash: num_layers decoder layers, two MLA caches each.
// Unlimited-OCR: language_config read as DeepseekAttention (qk_nope_head_dim and qk_rope_head_dim 0), R-SWA reserved as full.
const uocr = { architectures: ['UnlimitedOCRForCausalLM'], model_type: 'unlimited-ocr', language_config: { ...base, qk_nope_head_dim: 0, qk_rope_head_dim: 0, kv_lora_rank: null, sliding_window_size: 128 } };
const longcat = { ...base, num_hidden_layers: undefined, num_layers: 4, architectures: ['LongcatFlashForCausalLM'], model_type: 'longcat_flash',
  kv_lora_rank: 32, qk_rope_head_dim: 16 };
// Molmo: num_key_value_heads (null: one per query head) of hidden_size / num_attention_heads.
const molmo = { ...base, architectures: ['MolmoForCausalLM'], model_type: 'molmo' };
// Whisper: decoder_layers self-attentions of decoder_attention_heads heads of d_model / heads, each beside a
// cross-attention over max_num_encoder_input_tokens (required, no default).
const whisper = { architectures: ['WhisperForConditionalGeneration'], model_type: 'whisper', d_model: 256, decoder_layers: 4,
  decoder_attention_heads: 4, encoder_layers: 2, encoder_attention_heads: 4, max_target_positions: 4096, max_source_positions: 1500,
  torch_dtype: 'float16' };
const withField = (k, raw) => {
  // raw is JSON text for the value, so NaN / Infinity / huge literals survive
  const o = { ...base };
  delete o[k];
  const t = text(o);
  return `${t.slice(0, -1)}, "${k}": ${raw}}`;
};
const err = (code, field) => ({ code, ...(field === undefined ? {} : { field }) });
// The base names no architecture or model_type: an answer also says it was read as a
// standard decoder (a warning on model_type), unless another warning is the one to check.
const ok = (bytesPerToken, warningField = 'model_type') => ({ ok: true, bytesPerToken, warningField });

export const cases = [];
const add = (name, input, expect, options = {}) => cases.push({ name, input, expect, options });

// --- malformed JSON of every kind (code malformed_json, with a line and column) ---
const good = text(base);
for (let cut = 1; cut < good.length; cut += 7) add(`truncated at ${cut}`, good.slice(0, cut), err('malformed_json'));
const malformed = {
  'trailing comma': '{"num_hidden_layers": 4,}',
  'double comma': '{"num_hidden_layers": 4,, "hidden_size": 256}',
  'single quotes': "{'num_hidden_layers': 4}",
  'unquoted key': '{num_hidden_layers: 4}',
  'line comment': '{"num_hidden_layers": 4 // layers\n}',
  'block comment': '{/* c */ "num_hidden_layers": 4}',
  'missing colon': '{"num_hidden_layers" 4}',
  'extra closing brace': `${good}}`,
  'trailing garbage': `${good} x`,
  'two documents': `${good}${good}`,
  'leading garbage': `x${good}`,
  'raw newline in string': '{"model_type": "a\nb", "num_hidden_layers": 4}',
  'control character in string': '{"model_type": "a\u0001b"}',
  'invalid escape': '{"model_type": "\\x41"}',
  'lone high surrogate': '{"model_type": "\\ud800"}',
  'lone low surrogate': '{"model_type": "\\udc00x"}',
  'short unicode escape': '{"model_type": "\\u12"}',
  'lowercase nan': '{"num_hidden_layers": nan}',
  'Python None': '{"num_hidden_layers": None}',
  'Python True': '{"multi_query": True}',
  'plus sign': '{"num_hidden_layers": +4}',
  'leading zero': '{"num_hidden_layers": 04}',
  'bare decimal point': '{"num_hidden_layers": 4.}',
  'leading decimal point': '{"num_hidden_layers": .5}',
  'dangling exponent': '{"num_hidden_layers": 1e}',
  'hex literal': '{"num_hidden_layers": 0x10}',
  'number overflow': '{"num_hidden_layers": 1e400}',
  'negative overflow': '{"num_hidden_layers": -1e400}',
  'NaN as a key': '{NaN: 1}',
  'Infinity glued to a word': '{"num_hidden_layers": Infinityx}',
  'unclosed string': '{"num_hidden_layers": "4}',
  'unclosed array': '{"layer_types": ["full_attention"}',
  'only whitespace then brace': '   }',
  'UTF-16 BOM': '\ufffe{}',
  'nesting deeper than 128 levels': `{"text_config": ${'['.repeat(200)}${']'.repeat(200)}}`,
  'nesting 100,000 levels': `${'['.repeat(100000)}${']'.repeat(100000)}`,
  'bytes that are not UTF-8': Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
  'NUL byte in the text': `{"num_hidden_layers": 4\u0000}`,
};
for (const [name, input] of Object.entries(malformed)) add(`malformed: ${name}`, input, err('malformed_json'));
add('duplicate key at the top', '{"num_hidden_layers": 4, "num_hidden_layers": 8}', err('malformed_json', 'num_hidden_layers'));
add('duplicate key in text_config', '{"text_config": {"num_hidden_layers": 4, "num_hidden_layers": 8}}',
  err('malformed_json', 'text_config.num_hidden_layers'));
add('duplicate key, same value', `${good.slice(0, -1)}, "hidden_size": 256}`, err('malformed_json', 'hidden_size'));

// --- not an object, or empty ---
add('an array', '[1, 2]', err('invalid_value'));
add('a number', '42', err('invalid_value'));
add('a string', '"config"', err('invalid_value'));
add('null', 'null', err('invalid_value'));
add('empty text', '', err('malformed_json', 'config'));
add('only spaces', '   \n\t ', err('malformed_json', 'config'));
add('empty object', '{}', err('missing_field', 'num_hidden_layers'));
add('an unknown preset id', 'acme/not-a-model', err('unknown_preset', 'config'));

// --- wrong types, zeros, negatives, fractions, NaN and Infinity, huge numbers, per field ---
const numericFields = ['num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'hidden_size', 'head_dim',
  'max_position_embeddings'];
const badValues = {
  zero: '0', negative: '-1', fraction: '1.5', 'numeric string': '"8"', boolean: 'true', array: '[4]', object: '{"v": 4}',
  NaN: 'NaN', Infinity: 'Infinity', '-Infinity': '-Infinity', '2^64': '18446744073709551616', '1e300': '1e300',
  '2^53 + 1': '9007199254740993', 'negative fraction': '-0.5',
};
for (const f of numericFields)
  for (const [kind, raw] of Object.entries(badValues)) {
    // 2^53 + 1 is an integer: it is refused as too large for an exact report, except where
    // it is merely a maximum (max_position_embeddings), which then overflows no figure until used.
    if (kind === '2^53 + 1' && f === 'max_position_embeddings') {
      add(`${f}: ${kind}`, withField(f, raw), err('invalid_value', f));
      continue;
    }
    add(`${f}: ${kind}`, withField(f, raw), err('invalid_value', f));
  }

// --- nulls: a null field is an absent field ---
add('num_hidden_layers null', withField('num_hidden_layers', 'null'), err('missing_field', 'num_hidden_layers'));
add('num_attention_heads null', withField('num_attention_heads', 'null'), err('missing_field', 'num_attention_heads'));
add('num_key_value_heads null means MHA', withField('num_key_value_heads', 'null'), ok(4096));  // 2 x 4 x 4 x 64 x 2
add('hidden_size null without head_dim', withField('hidden_size', 'null'), err('missing_field', 'head_dim'));
add('hidden_size null with head_dim', `${withField('hidden_size', 'null').slice(0, -1)}, "head_dim": 32}`, ok(1024));  // 2 x 4 x 2 x 32 x 2 (the weights estimate reports weights_error: no width)
add('max_position_embeddings null needs a context', withField('max_position_embeddings', 'null'), err('missing_field', 'context'), { noContext: true });
add('max_position_embeddings null with a context', withField('max_position_embeddings', 'null'), ok(2048));
add('torch_dtype null', withField('torch_dtype', 'null'), ok(2048, 'torch_dtype'));
// LFM2: only the 2 attention layers cache per token, 2 x 2 x 2 x 64 x 2; the conv layers keep a fixed state.
add('LFM2 with its conv layers', text(lfm2), ok(1024, null));
// Falcon-H1: every one of the 4 layers caches 2 x 2 x 64 x 2 B beside its Mamba-2 state.
add('Falcon-H1 with its parallel layers', text(falconH1), ok(2048, null));
// Zamba2: the 2 hybrid layers cache 2 x 4 heads x (2 x 256 / 4) x 2 B = 2,048 B each; every layer keeps a Mamba-2 state.
add('Zamba2 with its hybrid layers', text(zamba2), ok(4096, null));
// MiniMax: the 2 full-attention layers cache 2 x 2 x 64 x 2 B each; the others keep a lightning state.
add('MiniMax with its lightning layers', text(minimax), ok(1024, null));
// Qwen2.5-Omni: the base's 4 layers in thinker_config.text_config, 2 x 4 x 2 x 64 x 2 B.
add('Qwen2.5-Omni through its thinker', text(omni), ok(2048, null));
// Qwen3-ASR realtime (qwen3_asr_realtime.py): Qwen3-ASR's thinker text model, the same 2 x 4 x 2 x 64 x 2 B.
add('Qwen3-ASR realtime through its thinker', text({ ...omni, architectures: ['Qwen3ASRRealtimeGeneration'], model_type: 'qwen3_asr' }), ok(2048, null));
// openPangu-VL (openpangu_vl.py): PanguEmbeddedForCausalLM on the wrapper's root fields, the base's 2,048 B.
const panguVL = { ...base, architectures: ['OpenPanguVLForConditionalGeneration'], model_type: 'openpangu_vl', vision_config: { depth: 2 } };
add('openPangu-VL through its root fields', text(panguVL), ok(2048, null));
// FireRedASR2 (fireredasr2.py): Qwen2ForCausalLM on the root config, the base's 2,048 B; the audio encoder keeps no cache.
const fireRed = { ...base, architectures: ['FireRedASR2ForConditionalGeneration'], model_type: 'qwen2', use_sliding_window: false, audio_encoder_conf: { n_layers_enc: 2, n_head: 4, d_model: 64 } };
add('FireRedASR2 through its root Qwen2 fields', text(fireRed), ok(2048, null));
// PLaMo2: layers 1 and 3 are attention, 2 x 2 x 2 x 64 x 2 B; layers 0 and 2 keep a Mamba-2 state.
add('PLaMo2 with its Mamba layers', text(plamo2), ok(1024, null));
// Bailing linear: layers 1 and 3 MLA, 2 x (32 + 16) x 2 B; layers 0 and 2 a lightning state.
add('Bailing linear with its lightning layers', text(bailing), ok(192, null));
// Step-3: 1 KV head of head_dim on every layer whatever num_key_value_heads says, 2 x 4 x 1 x 64 x 2 B.
add('Step-3 with its single KV head', text({ ...base, architectures: ['Step3TextForCausalLM'], model_type: 'step3_text', head_dim: 64 }), ok(1024, null));
// Ouro: 3 loop steps of full attention in every layer, 3 x 2 x 4 x 2 x 64 x 2 B.
add('Ouro with a cache per loop step', text(ouro), ok(6144, null));
// Whisper: per token the self-attention only, 2 x 4 x 4 x 64 x 2 B; the cross-attention is per request.
add('Whisper with its encoder length', text(whisper), ok(4096, null), { maxNumEncoderInputTokens: '1500' });
// FireRedLID without its decoder fields: vLLM's defaults, 6 layers of 20 heads of 1280 / 20: 6 x 2 x 20 x 64 x 2 B.
add('FireRedLID on vLLM\'s defaults', text({ architectures: ['FireRedLIDForConditionalGeneration'], torch_dtype: 'float16' }), ok(30720, null), { maxNumEncoderInputTokens: '100' });
// IQuest-LoopCoder: a full cache and 2 sliding ones (8 tokens) in every layer, 3 x 2 x 4 x 2 x 64 x 2 B.
add('IQuest-LoopCoder with its sliding loops', text(iquest), ok(6144, null));
// openPangu's sink attention: 4 layers x 2 KV heads x (64 + 32) x 2 B; the sink blocks are a warning.
add('openPangu with sink attention', text(pangu), ok(1536, 'param_sink_number'));
// Unlimited-OCR: 4 layers x 2 KV heads x 64 x 2 x 2 B, every layer full (RSWASpec); the gap-block freeing is a warning.
add('Unlimited-OCR with R-SWA attention', text(uocr), ok(2048, 'rswa_window'));
// HRM-Text: (2 x 2 + 2 x 1) caches x 2 x 4 heads (MHA) x 64 x 2 B.
add('HRM-Text with its recurrence steps', text(hrm), ok(6144, null));
// Moondream3: its text model under config.text, n_kv_heads x dim / n_heads on n_layers: 4 x 2 x 2 x 64 x 2 B.
const moondream = { architectures: ['HfMoondream'], model_type: 'moondream3', torch_dtype: 'bfloat16', config: { text: { n_layers: 4, n_heads: 4, n_kv_heads: 2, dim: 256, max_context: 4096 } } };
add('Moondream3 through config.text', text(moondream), ok(2048, null));
// Cosmos3: vLLM's Qwen3-VL text model on text_config: the base's shape with Qwen3VLTextConfig's default
// head_dim 128 (the base gives none), 4 layers x 2 x 2 KV heads x 128 x 2 B.
add('Cosmos3 through its text_config', text({ architectures: ['Cosmos3ForConditionalGeneration'], model_type: 'cosmos3_omni', text_config: { ...base, model_type: 'qwen3_vl_text' } }), ok(4096, null));
// PLaMo3: 4 layers x 2 x 2 KV heads x 64 x 2 B (layers 1 and 3 full, 0 and 2 slide by 8).
add('PLaMo3 with its derived per-layer windows', text(plamo3), ok(2048, null));
// Step-3.5: 2 full layers of 2 x 2 x 64 x 2 B and 2 sliding ones of 2 x 4 x 32 x 2 B, 2 x 512 + 2 x 512.
add('Step-3.5 with its sliding layers\' own geometry', text(step35), ok(2048, null));
// Step3-VL-10B: the Qwen3 text model text_config.architectures names, sized by its rule: the base's
// shape with Qwen3Config's default head_dim 128 (the base gives none), 4 layers x 2 x 2 KV heads x 128 x 2 B.
add('StepVL through its text_config.architectures', text({ architectures: ['StepVLForConditionalGeneration'], text_config: { ...base, architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3' } }), ok(4096, null));
// LongCat-Flash: 4 layers x 2 MLA caches x (32 + 16) x 2 B.
add('LongCat-Flash with two MLA caches a layer', text(longcat), ok(768, null));
// Molmo with a null num_key_value_heads: 4 heads per layer, 2 x 4 x 4 x 64 x 2 B.
add('Molmo with null num_key_value_heads', text({ ...molmo, num_key_value_heads: null }), ok(4096, null));
add('sliding_window null', withField('sliding_window', 'null'), ok(2048));

// --- contradictory fields ---
const contra = [
  ['KV heads not dividing query heads', withField('num_key_value_heads', '3'), err('inconsistent', 'num_key_value_heads')],
  ['more KV heads than query heads', withField('num_key_value_heads', '8'), err('inconsistent', 'num_key_value_heads')],
  ['hidden size not divisible by heads', withField('hidden_size', '250'), err('inconsistent', 'hidden_size')],
  ['layer_types shorter than the layers', `${good.slice(0, -1)}, "layer_types": ["full_attention"]}`, err('inconsistent', 'layer_types')],
  ['layer_types longer than the layers', `${good.slice(0, -1)}, "layer_types": ${text(Array(5).fill('full_attention'))}}`, err('inconsistent', 'layer_types')],
  ['layer_types not an array', `${good.slice(0, -1)}, "layer_types": "full_attention"}`, err('invalid_value', 'layer_types')],
  ['layer_types with a number', `${good.slice(0, -1)}, "layer_types": [1, 2, 3, 4]}`, err('invalid_value', 'layer_types[0]')],
  ['unknown layer type', `${good.slice(0, -1)}, "layer_types": ["full_attention", "full_attention", "full_attention", "quantum"]}`, err('invalid_value', 'layer_types[3]')],
  ['sliding layers without a window', `${good.slice(0, -1)}, "layer_types": ${text(Array(4).fill('sliding_attention'))}}`, err('missing_field', 'sliding_window')],
  ['MiMo-V2 without hybrid_layer_pattern', text({ ...mimo }), err('missing_field', 'hybrid_layer_pattern')],
  ['MiMo-V2 hybrid_layer_pattern longer than the layers', text({ ...mimo, hybrid_layer_pattern: [0, 1, 1, 1, 1] }), err('inconsistent', 'hybrid_layer_pattern')],
  ['MiMo-V2 hybrid_layer_pattern with a 2', text({ ...mimo, hybrid_layer_pattern: [0, 1, 2, 1] }), err('invalid_value', 'hybrid_layer_pattern[2]')],
  ['MiMo-V2 negative swa_head_dim', text({ ...mimo, hybrid_layer_pattern: [0, 1, 1, 1], swa_head_dim: -64 }), err('invalid_value', 'swa_head_dim')],
  ['MiMo-V2 sliding layers without swa_num_key_value_heads', text({ ...mimo, hybrid_layer_pattern: [0, 1, 1, 1], swa_num_key_value_heads: undefined }), err('missing_field', 'swa_num_key_value_heads')],
  ['LFM2 conv layers without conv_dim', text({ ...lfm2, conv_dim: undefined }), err('missing_field', 'conv_dim')],
  ['LFM2 conv_L_cache of 1', text({ ...lfm2, conv_L_cache: 1 }), err('invalid_value', 'conv_L_cache')],
  ['LFM2 negative conv_dim', text({ ...lfm2, conv_dim: -256 }), err('invalid_value', 'conv_dim')],
  ['LFM2 full_attn_idxs beyond the layers', text({ ...lfm2, layer_types: undefined, full_attn_idxs: [1, 9] }), err('inconsistent', 'full_attn_idxs[1]')],
  ['LFM2-MoE without layer_types', text({ ...lfm2, architectures: ['Lfm2MoeForCausalLM'], model_type: 'lfm2_moe', layer_types: undefined }), err('missing_field', 'layer_types')],
  ['Falcon-H1 mamba_d_head not matching mamba_d_ssm', text({ ...falconH1, mamba_d_head: 32 }), err('inconsistent', 'mamba_d_head')],
  ['Falcon-H1 negative mamba_d_ssm', text({ ...falconH1, mamba_d_ssm: -512 }), err('invalid_value', 'mamba_d_ssm')],
  ['Falcon-H1 mamba_d_state zero', text({ ...falconH1, mamba_d_state: 0 }), err('invalid_value', 'mamba_d_state')],
  ['Falcon-H1 mamba_n_heads a string', text({ ...falconH1, mamba_n_heads: 'eight' }), err('invalid_value', 'mamba_n_heads')],
  ['Zamba2 without layers_block_type', text({ ...zamba2, layers_block_type: undefined }), err('missing_field', 'layers_block_type')],
  ['Zamba2 layers_block_type with an unknown block', text({ ...zamba2, layers_block_type: ['mamba', 'attention', 'mamba', 'hybrid'] }), err('invalid_value', 'layers_block_type[1]')],
  ['Zamba2 layers_block_type shorter than the layers', text({ ...zamba2, layers_block_type: ['mamba', 'hybrid'] }), err('inconsistent', 'layers_block_type')],
  ['Zamba2 n_mamba_heads not dividing the inner width', text({ ...zamba2, n_mamba_heads: 7 }), err('inconsistent', 'n_mamba_heads')],
  ['MiniMax without head_dim', text({ ...minimax, head_dim: undefined }), err('missing_field', 'head_dim')],
  ['MiniMax attn_type_list with a 2', text({ ...minimax, attn_type_list: [0, 1, 2, 1] }), err('invalid_value', 'attn_type_list[2]')],
  ['MiniMax attn_type_list shorter than the layers', text({ ...minimax, attn_type_list: [0, 1] }), err('inconsistent', 'attn_type_list')],
  ['DeciLM block without attention fields', text({ ...deci, block_configs: [{ ffn: {} }, ...deciBlocks.slice(1)] }), err('missing_field', 'block_configs[0].attention')],
  ['DeciLM attention without n_heads_in_group', text({ ...deci, block_configs: [{ attention: { no_op: false } }, ...deciBlocks.slice(1)] }), err('missing_field', 'block_configs[0].attention.n_heads_in_group')],
  ['DeciLM negative n_heads_in_group', text({ ...deci, block_configs: [{ attention: { n_heads_in_group: -2 } }, ...deciBlocks.slice(1)] }), err('invalid_value', 'block_configs[0].attention.n_heads_in_group')],
  ['DeciLM n_heads_in_group not dividing the heads', text({ ...deci, block_configs: [{ attention: { n_heads_in_group: 3 } }, ...deciBlocks.slice(1)] }), err('inconsistent', 'block_configs[0].attention.n_heads_in_group')],
  ['DeciLM block_configs shorter than the layers', text({ ...deci, block_configs: deciBlocks.slice(1) }), err('inconsistent', 'block_configs')],
  ['Rnj1 chunked (sliding) layers without a window', text({ ...base, architectures: ['Rnj1ForCausalLM'], model_type: 'rnj1', layer_types: ['chunked_attention', 'chunked_attention', 'chunked_attention', 'full_attention'] }), err('missing_field', 'sliding_window')],
  ['Qwen2.5-Omni without the thinker\'s text_config', text({ ...omni, thinker_config: { audio_config: {} } }), err('missing_field', 'thinker_config.text_config')],
  ['Qwen3-ASR realtime without the thinker\'s text_config', text({ ...omni, architectures: ['Qwen3ASRRealtimeGeneration'], thinker_config: {} }), err('missing_field', 'thinker_config.text_config')],
  ['FireRedASR2 with its text fields only under text_config', text({ architectures: ['FireRedASR2ForConditionalGeneration'], model_type: 'qwen2', text_config: base }), err('missing_field', 'num_hidden_layers')],
  ['FunASR with its text fields only under text_config', text({ architectures: ['FunASRForConditionalGeneration'], model_type: 'qwen3', text_config: base }), err('missing_field', 'num_hidden_layers')],
  ['openPangu-VL with its text fields only under text_config', text({ architectures: ['OpenPanguVLForConditionalGeneration'], model_type: 'openpangu_vl', text_config: base }), err('missing_field', 'num_hidden_layers')],
  ['Qwen2.5-Omni thinker_config not an object', text({ ...omni, thinker_config: [] }), err('invalid_value', 'thinker_config')],
  ['Qwen2.5-Omni thinker with use_sliding_window true', text({ ...omni, thinker_config: { text_config: { ...base, use_sliding_window: true, sliding_window: 64 } } }), err('unsupported_architecture', 'thinker_config.text_config.use_sliding_window')],
  ['Qwen2.5-Omni thinker with a window and no use_sliding_window', text({ ...omni, thinker_config: { text_config: { ...base, sliding_window: 64 } } }), err('unsupported_architecture', 'thinker_config.text_config.sliding_window')],
  ['Qwen2.5-Omni thinker without KV heads dividing the heads', text({ ...omni, thinker_config: { text_config: { ...base, num_key_value_heads: 3 } } }), err('inconsistent', 'thinker_config.text_config.num_key_value_heads')],
  ['PLaMo2 without mamba_step', text({ ...plamo2, mamba_step: undefined }), err('missing_field', 'mamba_step')],
  ['PLaMo2 mamba_step of 1', text({ ...plamo2, mamba_step: 1 }), err('invalid_value', 'mamba_step')],
  ['PLaMo2 without hidden_size_per_head', text({ ...plamo2, hidden_size_per_head: undefined }), err('missing_field', 'hidden_size_per_head')],
  ['PLaMo2 negative mamba_num_heads', text({ ...plamo2, mamba_num_heads: -8 }), err('invalid_value', 'mamba_num_heads')],
  ['Bailing linear MLA layers without kv_lora_rank', text({ ...bailing, kv_lora_rank: undefined }), err('missing_field', 'kv_lora_rank')],
  ['Bailing linear negative layer_group_size', text({ ...bailing, layer_group_size: -2 }), err('invalid_value', 'layer_group_size')],
  ['Molmo2 without head_dim', text({ architectures: ['Molmo2ForConditionalGeneration'], text_config: { ...base } }), err('missing_field', 'text_config.head_dim')],
  ['Whisper without decoder_layers', text({ ...whisper, decoder_layers: undefined }), err('missing_field', 'decoder_layers')],
  ['Whisper without decoder_attention_heads', text({ ...whisper, decoder_attention_heads: undefined }), err('missing_field', 'decoder_attention_heads')],
  ['Whisper without d_model', text({ ...whisper, d_model: undefined }), err('missing_field', 'd_model')],
  ['FireRedLID with n_head not dividing d_model', text({ architectures: ['FireRedLIDForConditionalGeneration'], n_head: 3, d_model: 256 }), err('inconsistent', 'd_model')],
  ['FireRedLID with n_layers_lid_dec zero', text({ architectures: ['FireRedLIDForConditionalGeneration'], n_layers_lid_dec: 0 }), err('invalid_value', 'n_layers_lid_dec')],
  ['Whisper with heads not dividing d_model', text({ ...whisper, d_model: 250 }), err('inconsistent', 'd_model')],
  ['Ouro without num_key_value_heads', text({ ...ouro, num_key_value_heads: undefined }), err('missing_field', 'num_key_value_heads')],
  ['Ouro with zero loop steps', text({ ...ouro, total_ut_steps: 0 }), err('invalid_value', 'total_ut_steps')],
  ['Ouro with a fractional loop count', text({ ...ouro, total_ut_steps: 2.5 }), err('invalid_value', 'total_ut_steps')],
  ['Ouro with encoder-only attention', text({ ...ouro, is_causal: false }), err('unsupported_architecture', 'is_causal')],
  ['Ouro with a window on every layer', text({ ...ouro, sliding_window: 64 }), err('unsupported_architecture', 'sliding_window')],
  ['IQuest-LoopCoder with a string loop_num', text({ ...iquest, loop_num: '2' }), err('invalid_value', 'loop_num')],
  ['IQuest-LoopCoder with a zero window', text({ ...iquest, loop_window_size: 0 }), err('invalid_value', 'loop_window_size')],
  ['IQuest-LoopCoder without hidden_size (head_dim is not read)', text({ ...iquest, hidden_size: undefined, head_dim: 64 }), err('missing_field', 'hidden_size')],
  ['loop_num outside IQuest-LoopCoder', text({ ...base, loop_num: 2 }), err('unsupported_architecture', 'loop_num')],
  ['openPangu sink attention without v_channels', text({ ...pangu, v_channels: undefined }), err('missing_field', 'v_channels')],
  ['openPangu sink attention with a negative qk_rope_dim', text({ ...pangu, qk_rope_dim: -16 }), err('invalid_value', 'qk_rope_dim')],
  ['openPangu with half the MLA fields', text({ ...pangu, kv_lora_rank: 32, qk_rope_head_dim: 16 }), err('missing_field', 'qk_nope_head_dim')],
  ['openPangu with MoME', text({ ...pangu, use_mome: true }), err('unsupported_architecture', 'use_mome')],
  ['openPangu with a string param_sink_number', text({ ...pangu, param_sink_number: '16' }), err('invalid_value', 'param_sink_number')],
  ['param_sink_number outside openPangu', text({ ...base, param_sink_number: 16 }), err('unsupported_architecture', 'param_sink_number')],
  ['Unlimited-OCR without qk_rope_head_dim', text({ ...uocr, language_config: { ...uocr.language_config, qk_rope_head_dim: undefined } }), err('missing_field', 'language_config.qk_rope_head_dim')],
  ['Unlimited-OCR with MLA head dims', text({ ...uocr, language_config: { ...uocr.language_config, qk_nope_head_dim: 128, qk_rope_head_dim: 64 } }), err('unsupported_architecture', 'language_config.qk_nope_head_dim')],
  ['Unlimited-OCR without num_key_value_heads', text({ ...uocr, language_config: { ...uocr.language_config, num_key_value_heads: undefined } }), err('missing_field', 'language_config.num_key_value_heads')],
  ['Unlimited-OCR with a string qk_nope_head_dim', text({ ...uocr, language_config: { ...uocr.language_config, qk_nope_head_dim: '0' } }), err('invalid_value', 'language_config.qk_nope_head_dim')],
  ['HRM-Text without num_layers_per_stack', text({ ...hrm, num_layers_per_stack: undefined, num_hidden_layers: 4 }), err('missing_field', 'num_layers_per_stack')],
  ['num_layers_per_stack outside HRM-Text', text({ ...base, num_hidden_layers: undefined, num_layers_per_stack: 2 }), err('missing_field', 'num_hidden_layers')],
  ['HRM-Text without H_cycles', text({ ...hrm, H_cycles: undefined }), err('missing_field', 'H_cycles')],
  ['HRM-Text with a negative L_cycles', text({ ...hrm, L_cycles: -1 }), err('invalid_value', 'L_cycles')],
  ['Moondream3 without config.text', text({ ...moondream, config: {} }), err('missing_field', 'config.text')],
  ['Moondream3 without n_kv_heads (vLLM\'s default 32 is not taken)', text({ ...moondream, config: { text: { ...moondream.config.text, n_kv_heads: undefined } } }), err('missing_field', 'config.text.n_kv_heads')],
  ['Moondream3 with a dim its heads do not divide', text({ ...moondream, config: { text: { ...moondream.config.text, dim: 250 } } }), err('inconsistent', 'config.text.dim')],
  ['Cosmos3 without its text_config', text({ architectures: ['Cosmos3ForConditionalGeneration'], model_type: 'cosmos3_omni' }), err('missing_field', 'num_hidden_layers')],
  ['PLaMo3 without window_size', text({ ...plamo3, window_size: undefined }), err('missing_field', 'window_size')],
  ['PLaMo3 without sliding_window_pattern', text({ ...plamo3, sliding_window_pattern: undefined }), err('missing_field', 'sliding_window_pattern')],
  ['PLaMo3 without head_dim', text({ ...plamo3, head_dim: undefined }), err('missing_field', 'head_dim')],
  ['PLaMo3 with a string window_size', text({ ...plamo3, window_size: '8' }), err('invalid_value', 'window_size')],
  ['PLaMo3 with sliding_window_pattern 1', text({ ...plamo3, sliding_window_pattern: 1 }), err('unsupported_architecture', 'sliding_window_pattern')],
  ['PLaMo3 with a sliding_window other than window_size', text({ ...plamo3, sliding_window: 16 }), err('unsupported_architecture', 'sliding_window')],
  ['PLaMo3 with an interleaved_sliding_window that contradicts its pattern', text({ ...plamo3, interleaved_sliding_window: [8, 8, 8, null] }), err('inconsistent', 'interleaved_sliding_window[1]')],
  ['Step-3.5 without num_attention_groups', text({ ...step35, num_attention_groups: undefined }), err('missing_field', 'num_attention_groups')],
  ['Step-3.5 with one KV group', text({ ...step35, num_attention_groups: 1 }), err('unsupported_architecture', 'num_attention_groups')],
  ['Step-3.5 other setting without attention_type', text({ ...step35, attention_other_setting: { num_attention_heads: 8 } }), err('missing_field', 'attention_other_setting.attention_type')],
  ['Step-3.5 other setting without head_dim', text({ ...step35, attention_other_setting: { attention_type: 'sliding_attention', num_attention_heads: 8, num_attention_groups: 4 } }), err('missing_field', 'attention_other_setting.head_dim')],
  ['Step-3.5 other groups not dividing its heads', text({ ...step35, attention_other_setting: { ...step35.attention_other_setting, num_attention_groups: 3 } }), err('inconsistent', 'attention_other_setting.num_attention_groups')],
  ['Step-3.5 layer_types shorter than the layers', text({ ...step35, layer_types: ['full_attention', 'sliding_attention'] }), err('inconsistent', 'layer_types')],
  ['Step-3.5 MLA attention', text({ ...step35, att_impl_type: 'MLA' }), err('unsupported_architecture', 'att_impl_type')],
  ['LongCat-Flash without kv_lora_rank', text({ ...longcat, kv_lora_rank: undefined }), err('missing_field', 'kv_lora_rank')],
  ['LongCat-Flash num_hidden_layers other than num_layers', text({ ...longcat, num_hidden_layers: 8 }), err('unsupported_architecture', 'num_hidden_layers')],
  ['Step3-VL without text_config.architectures', text({ architectures: ['Step3VLForConditionalGeneration'], text_config: { ...base } }), err('missing_field', 'text_config.architectures')],
  ['Step-3 without head_dim', text({ ...base, architectures: ['Step3TextForCausalLM'], model_type: 'step3_text' }), err('missing_field', 'head_dim')],
  ['Molmo head_dim other than hidden_size / heads', text({ ...molmo, head_dim: 32 }), err('unsupported_architecture', 'head_dim')],
  ['Chameleon head_dim other than hidden_size / heads', text({ ...base, architectures: ['ChameleonForConditionalGeneration'], model_type: 'chameleon', head_dim: 128 }), err('unsupported_architecture', 'head_dim')],
  ['sliding window zero', `${good.slice(0, -1)}, "sliding_window": 0}`, err('invalid_value', 'sliding_window')],
  ['use_sliding_window true without a window', `${good.slice(0, -1)}, "use_sliding_window": true}`, err('missing_field', 'sliding_window')],
  ['use_sliding_window as a string', `${good.slice(0, -1)}, "use_sliding_window": "false", "sliding_window": 64}`, err('invalid_value', 'use_sliding_window')],
  ['max_window_layers negative', `${good.slice(0, -1)}, "use_sliding_window": true, "sliding_window": 64, "max_window_layers": -1}`, err('invalid_value', 'max_window_layers')],
  ['hybrid pattern of the wrong length', `${good.slice(0, -1)}, "hybrid_override_pattern": "M*"}`, err('inconsistent', 'hybrid_override_pattern')],
  ['hybrid pattern with an unknown symbol', `${good.slice(0, -1)}, "hybrid_override_pattern": "M*Q*"}`, err('invalid_value', 'hybrid_override_pattern')],
  ['hybrid pattern as a number', `${good.slice(0, -1)}, "hybrid_override_pattern": 4}`, err('invalid_value', 'hybrid_override_pattern')],
  ['Mamba layers without state dims', `${good.slice(0, -1)}, "hybrid_override_pattern": "M*M*"}`, err('missing_field', 'linear_num_value_heads')],
  ['linear layers without state dims', `${good.slice(0, -1)}, "full_attention_interval": 2}`, err('missing_field', 'linear_num_value_heads')],
  ['full_attention_interval zero', `${good.slice(0, -1)}, "full_attention_interval": 0}`, err('invalid_value', 'full_attention_interval')],
  ['layer listed twice', `${good.slice(0, -1)}, "linear_attn_config": {"full_attn_layers": [1, 1], "kda_layers": [2, 3, 4]}}`, err('inconsistent', 'linear_attn_config.full_attn_layers[1]')],
  ['layer beyond the model (1-indexed)', `${good.slice(0, -1)}, "linear_attn_config": {"full_attn_layers": [5], "kda_layers": [1, 2, 3]}}`, err('inconsistent', 'linear_attn_config.full_attn_layers[0]')],
  ['layer in neither list', `${good.slice(0, -1)}, "linear_attn_config": {"full_attn_layers": [1], "kda_layers": [2, 3]}}`, err('inconsistent', 'linear_attn_config')],
  ['linear_attn_config without kda_layers', `${good.slice(0, -1)}, "linear_attn_config": {"full_attn_layers": [1, 2, 3, 4]}}`, err('missing_field', 'linear_attn_config.kda_layers')],
  ['kv_lora_rank without qk_rope_head_dim', `${good.slice(0, -1)}, "kv_lora_rank": 512}`, err('missing_field', 'qk_rope_head_dim')],
  ['kv_lora_rank zero', `${good.slice(0, -1)}, "kv_lora_rank": 0, "qk_rope_head_dim": 64}`, err('invalid_value', 'kv_lora_rank')],
  ['qk_rope_head_dim as a string', `${good.slice(0, -1)}, "kv_lora_rank": 512, "qk_rope_head_dim": "64"}`, err('invalid_value', 'qk_rope_head_dim')],
  ['attention_chunk_size zero', `${good.slice(0, -1)}, "attention_chunk_size": 0}`, err('invalid_value', 'attention_chunk_size')],
  ['no_rope_layers of the wrong length', `${good.slice(0, -1)}, "attention_chunk_size": 64, "no_rope_layers": [1, 0]}`, err('inconsistent', 'no_rope_layers')],
  ['no_rope_layers with a 2', `${good.slice(0, -1)}, "attention_chunk_size": 64, "no_rope_layers": [1, 1, 2, 0]}`, err('invalid_value', 'no_rope_layers[2]')],
  ['all layers shared', `${good.slice(0, -1)}, "num_kv_shared_layers": 4}`, err('inconsistent', 'num_kv_shared_layers')],
  ['global KV heads not dividing', `${good.slice(0, -1)}, "attention_k_eq_v": true, "num_global_key_value_heads": 3}`, err('inconsistent', 'num_global_key_value_heads')],
  ['multi_query as a string', `${withField('num_key_value_heads', 'null').slice(0, -1)}, "multi_query": "yes"}`, err('invalid_value', 'multi_query')],
  ['text_config as a string', '{"text_config": "num_hidden_layers"}', err('invalid_value', 'text_config')],
  ['text_config as an array', '{"text_config": [4]}', err('invalid_value', 'text_config')],
  ['text_config with a bad field', `{"text_config": ${withField('num_attention_heads', '0')}}`, err('invalid_value', 'text_config.num_attention_heads')],
  ['text_config without layers', '{"text_config": {"hidden_size": 256}}', err('missing_field', 'num_hidden_layers')],
  ['torch_dtype unknown', withField('torch_dtype', '"int8"'), err('invalid_value', 'torch_dtype')],
  ['torch_dtype a number', withField('torch_dtype', '16'), err('invalid_value', 'torch_dtype')],
  ['mamba_ssm_dtype unknown', `${good.slice(0, -1)}, "full_attention_interval": 2, "linear_conv_kernel_dim": 4, "linear_num_key_heads": 2, "linear_key_head_dim": 8, "linear_num_value_heads": 2, "linear_value_head_dim": 8, "mamba_ssm_dtype": "fp4"}`, err('invalid_value', 'mamba_ssm_dtype')],
  ['state dims with a zero', `${good.slice(0, -1)}, "full_attention_interval": 2, "linear_conv_kernel_dim": 4, "linear_num_key_heads": 0, "linear_key_head_dim": 8, "linear_num_value_heads": 2, "linear_value_head_dim": 8}`, err('invalid_value', 'linear_num_key_heads')],
];
for (const [name, input, expect] of contra) add(name, input, expect);

// --- absurd sizes: an overflow is an error, never a wrapped number ---
add('layer count beyond any model', withField('num_hidden_layers', '100001'), err('invalid_value', 'num_hidden_layers'));
add('head_dim of 2^40 at 4096 tokens', withField('head_dim', '1099511627776'), err('overflow', 'context'));
add('head_dim of 2^50 overflows one token', withField('head_dim', '1125899906842624'), err('overflow', 'head_dim'));
add('context near 2^53', good, err('overflow', 'context'), { context: '9007199254740991' });
add('batch of 10^12', good, err('overflow', 'batch'), { batch: '1000000000000' });
add('context with 17 digits', good, err('bad_option', 'context'), { context: '12345678901234567' });
add('kv_lora_rank of 2^52', `${good.slice(0, -1)}, "kv_lora_rank": 4503599627370496, "qk_rope_head_dim": 64}`, err('overflow'));

// --- options ---
add('unknown kv dtype', good, err('bad_option', 'kv_dtype'), { kvDtype: 'fp7' });
add('fp8_ds_mla on a non-MLA model', good, err('bad_option', 'kv_dtype'), { kvDtype: 'fp8_ds_mla' });
add('unknown accounting', good, err('bad_option', 'accounting'), { accounting: 'optimistic' });
add('tp not dividing heads', good, err('bad_option', 'tp'), { tp: '3' });
add('tp zero', good, err('bad_option', 'tp'), { tp: '0' });
add('pp above the layers', good, err('bad_option', 'pp'), { pp: '5' });
add('block size zero', good, err('bad_option', 'block_size'), { blockSize: '0' });
add('block size above a megatoken', good, err('bad_option', 'block_size'), { blockSize: '2000000' });
add('prefix longer than the context', good, err('bad_option', 'shared_prefix'), { sharedPrefix: '5000' });
add('batch zero', good, err('bad_option', 'batch'), { batch: '0' });
add('context zero', good, err('bad_option', 'context'), { context: '0' });
add('max_num_batched_tokens zero', good, err('bad_option', 'max_num_batched_tokens'), { maxNumBatchedTokens: '0' });
add('speculative tokens on a model with no MTP draft', good, err('bad_option', 'num_speculative_tokens'), { numSpeculativeTokens: '2' });
add('speculative tokens negative', good, err('bad_option', 'num_speculative_tokens'), { numSpeculativeTokens: '-1' });
add('speculative tokens above 1024', good, err('bad_option', 'num_speculative_tokens'), { numSpeculativeTokens: '1025' });
add('Whisper without its encoder length', text(whisper), err('missing_field', 'max_num_encoder_input_tokens'));
add('encoder length zero', text(whisper), err('bad_option', 'max_num_encoder_input_tokens'), { maxNumEncoderInputTokens: '0' });
add('encoder length as text', text(whisper), err('bad_option', 'max_num_encoder_input_tokens'), { maxNumEncoderInputTokens: 'many' });
add('Mamba cache mode all (not modelled)', good, err('bad_option', 'mamba_cache_mode'), { mambaCacheMode: 'all' });

// --- accepted oddities: answered exactly, with a warning where documented ---
add('UTF-8 BOM', `\ufeff${good}`, ok(2048));
add('CRLF line ends', good.replace(/,/g, ',\r\n'), ok(2048));
add('leading and trailing white space', `\n\t ${good} \n`, ok(2048));
add('integral float 4.0', withField('num_hidden_layers', '4.0'), ok(2048));
add('exponent integer 4e0', withField('num_hidden_layers', '4e0'), ok(2048));
add('NaN in a field kvcalc does not read', `${good.slice(0, -1)}, "time_step_limit": [0.0, Infinity], "rope_theta": NaN}`, ok(2048));
add('-Infinity in a field kvcalc does not read', `${good.slice(0, -1)}, "floor": -Infinity}`, ok(2048));
add('unknown model_type', `${good.slice(0, -1)}, "model_type": "acme_unreleased_v9"}`, ok(2048));
add('unknown architecture name', `${good.slice(0, -1)}, "architectures": ["AcmeForCausalLM"]}`, ok(2048, 'architectures'));
add('a model name with markup', `${good.slice(0, -1)}, "_name_or_path": "<img src=x onerror=alert(1)>"}`, ok(2048));
add('float32 checkpoint', withField('torch_dtype', '"float32"'), ok(2048, 'torch_dtype'));
// Fields that change the cache in ways kvcalc does not model: refused by name, never sized.
add('cross-attention layers', `${good.slice(0, -1)}, "cross_attention_layers": [1]}`, err('unsupported_architecture', 'cross_attention_layers'));
add('attn_type_list', `${good.slice(0, -1)}, "attn_type_list": [1, 0, 1, 0]}`, err('unsupported_architecture', 'attn_type_list'));
add('layers_block_type', `${good.slice(0, -1)}, "layers_block_type": ["attention"]}`, err('unsupported_architecture', 'layers_block_type'));
add('block_configs', `${good.slice(0, -1)}, "block_configs": []}`, err('unsupported_architecture', 'block_configs'));
add('compress_ratios (DeepSeek-V4)', `${good.slice(0, -1)}, "compress_ratios": [0, 4, 128, 4, 0]}`, err('unsupported_architecture', 'compress_ratios'));
// A model_type naming a refused family, without its architecture: refused as that family, not read as a standard decoder.
add('model_type deepseek_v4 without architectures', `${good.slice(0, -1)}, "model_type": "deepseek_v4"}`, err('unsupported_architecture', 'model_type'));
// vLLM reads attn_config only for MPT and DBRX, and an indexer only beside MLA: ignored here, as vLLM does.
add('attn_config', `${good.slice(0, -1)}, "attn_config": {"kv_n_heads": 1}}`, ok(2048));
add('sparse-attention indexer', `${good.slice(0, -1)}, "index_head_dim": 128}`, ok(2048));
add('MTP layers', `${good.slice(0, -1)}, "num_nextn_predict_layers": 1}`, ok(2048, 'num_nextn_predict_layers'));
add('attention_k_eq_v', `${good.slice(0, -1)}, "attention_k_eq_v": true}`, ok(2048, 'attention_k_eq_v'));
add('context above the model max', good, ok(2048, 'context'), { context: '8192' });
add('use_sliding_window false ignores the window', `${good.slice(0, -1)}, "use_sliding_window": false, "sliding_window": 7}`, ok(2048));
add('a megabyte of extra fields', `${good.slice(0, -1)}, ${Array.from({ length: 40000 }, (_, i) => `"pad_${i}": ${i}`).join(', ')}}`, ok(2048));
add('a half-megabyte string', `${good.slice(0, -1)}, "notes": "${'x'.repeat(1 << 19)}"}`, ok(2048));
add('a string that takes the text past 1 MiB', `${good.slice(0, -1)}, "notes": "${'x'.repeat(1 << 20)}"}`, err('invalid_value', ''));
add('a 50,000-entry layer_types', `${good.slice(0, -1)}, "layer_types": ${text(Array(50000).fill('full_attention'))}}`, err('inconsistent', 'layer_types'));
add('escaped unicode in names', `${good.slice(0, -1)}, "_name_or_path": "\\u00e9\\ud83d\\ude00"}`, ok(2048));

export const baseConfig = good;
add('Infinity where a dtype name is needed', withField('torch_dtype', 'Infinity'), err('invalid_value', 'torch_dtype'));
add('NaN as a layer type', `${good.slice(0, -1)}, "layer_types": [NaN, "full_attention", "full_attention", "full_attention"]}`, err('invalid_value', 'layer_types[0]'));
add('NaN as the model name', `${good.slice(0, -1)}, "_name_or_path": NaN}`, ok(2048));

// --- engine llamacpp (ollama, lmstudio): llama.cpp's options and what llama.cpp refuses ---
// The base as a llama model_type, which converts to llama.cpp's llama architecture: a cell of 4 layers x 2 KV
// heads x 64 of K and of V at f16 is 2,048 B; at q4_0, 4 x 2 x 2 x (128 / 32) x 18 = 576 B.
const llama = text({ ...base, model_type: 'llama' });
add('llama.cpp f16 cell', llama, ok(2048), { engine: 'llamacpp', parallel: '1' });
add('llama.cpp q4_0 cell: 18 B per 32 values', llama, ok(576),
  { engine: 'llamacpp', parallel: '1', cacheTypeK: 'q4_0', cacheTypeV: 'q4_0' });
add('a quantized V cache with flash attention off', llama, err('bad_option', 'cache_type_v'),
  { engine: 'llamacpp', cacheTypeV: 'q8_0', flashAttn: 'off' });
add('a head size of 80 in q8_0 blocks of 32', text({ ...base, model_type: 'llama', hidden_size: 320 }),
  err('bad_option', 'cache_type_k'), { engine: 'llamacpp', cacheTypeK: 'q8_0' });
add('257 slots', llama, err('bad_option', 'parallel'), { engine: 'llamacpp', parallel: '257' });
add('an unknown cache type', llama, err('bad_option', 'cache_type_k'), { engine: 'llamacpp', cacheTypeK: 'q3_k' });
add('a llama.cpp option with engine vllm', good, err('bad_option', 'parallel'), { engine: 'vllm', parallel: '2' });
add('a vLLM option with engine llamacpp', llama, err('bad_option', 'batch'), { engine: 'llamacpp', batch: '2' });
add('accounting vllm with engine llamacpp', llama, err('bad_option', 'accounting'), { engine: 'llamacpp', accounting: 'vllm' });
add('a config llama.cpp has no mapping for', good, err('unsupported_architecture', 'engine'), { engine: 'llamacpp' });
add('Ollama before v0.30', llama, err('bad_option', 'ollama_version'), { engine: 'ollama', ollamaVersion: '0.29.0' });
add('a llama.cpp build number of 0', llama, err('bad_option', 'llamacpp_build'), { engine: 'llamacpp', llamacppBuild: '0' });
add('flash_attn auto before b6325', llama, err('bad_option', 'flash_attn'), { engine: 'llamacpp', flashAttn: 'auto', llamacppBuild: '6000' });

// --- GGUF files (bytes, not text): read by the CLI from stdin, by the JS API's readGguf() from
// a File; each a malformed_gguf error naming the key, or "gguf" outside one. ---
const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const gstr = (s) => { const b = Buffer.from(s); return Buffer.concat([u64(b.length), b]); };
// magic, version, tensor count, then the pairs' count and bytes: [key, type, value bytes]
const ggufFile = (pairs, { version = 3, count = pairs.length } = {}) =>
  Buffer.concat([Buffer.from('GGUF'), u32(version), u64(0), u64(count), ...pairs.flatMap(([k, t, v]) => [gstr(k), u32(t), v])]);
const ggufOk = ggufFile([['general.architecture', 8, gstr('llama')], ['llama.block_count', 4, u32(32)],
  ['llama.attention.head_count_kv', 9, Buffer.concat([u32(5), u64(4), u32(8), u32(8), u32(0), u32(8)])]]);
const gguf = (name, bytes, field) => cases.push({ name: `GGUF: ${name}`, input: bytes, gguf: true, expect: err('malformed_gguf', field), options: {} });
// Cut in the header, the first key, the second key (offset 69 to 94), the second value (98 to 102), the
// third value's array header (143 to 155) and its elements.
for (const cut of [4, 8, 23, 24, 40, 75, 100, 150, 170]) {
  gguf(`cut at ${cut} of ${ggufOk.length}`, ggufOk.subarray(0, cut), cut <= 94 ? 'gguf' : cut <= 102 ? 'llama.block_count' : 'llama.attention.head_count_kv');
}
gguf('version 1', Buffer.concat([Buffer.from('GGUF'), u32(1), u32(0), u32(0)]), 'gguf');
gguf('version 4', ggufFile([], { version: 4 }), 'gguf');
gguf('version 0', ggufFile([], { version: 0 }), 'gguf');
gguf('a billion pairs', ggufFile([], { count: 1e9 }), 'gguf');
gguf('a nested array', ggufFile([['t.a', 9, Buffer.concat([u32(9), u64(1), u32(4), u64(1), u32(1)])]]), 't.a');
gguf('value type 13', ggufFile([['t.b', 13, u32(1)]]), 't.b');
gguf('an array of 2^62 elements', ggufFile([['t.c', 9, Buffer.concat([u32(4), u64(2n ** 62n)])]]), 't.c');
gguf('a string of 2^40 bytes', ggufFile([['t.d', 8, u64(2 ** 40)]]), 't.d');
gguf('a key of 70,000 bytes', ggufFile([['k'.repeat(70000), 4, u32(1)]]), 'gguf');
gguf('a duplicate key', ggufFile([['general.name', 8, gstr('a')], ['general.name', 8, gstr('b')]]), 'gguf');
