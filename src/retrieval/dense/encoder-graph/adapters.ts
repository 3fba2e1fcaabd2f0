/**
 * Bottleneck adapters saved by the adapters library (adapter-hub/adapters, `model.save_adapter`):
 * `adapter_config.json` + `adapter.safetensors` or `pytorch_adapter.bin` (through the restricted unpickler), put
 * into the encoder graph where the library puts them. Configs seq_bn ("pfeiffer", SPECTER2's) and double_seq_bn
 * ("houlsby") and every BnConfig key they vary. The arithmetic is methods/modeling.py's Adapter.pre_forward,
 * forward and post_forward as BertSelfOutputWithAdapters / BertOutputWithAdapters call them through
 * bottleneck_layer_forward — the layer's own LayerNorm may be applied twice on that path. A key value the graph
 * does not compute (parallel, gated, PHM, invertible adapters, other methods) is one line naming the key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CitebenchError } from '../../../util/errors.ts';
import { readTorchFile } from '../checkpoint/index.ts';
import { readSafetensorsFile } from '../checkpoint/safetensors.ts';
import type { CheckpointTensor } from '../checkpoint/tensors.ts';
import type { GraphBuilder, Param } from './builder.ts';
import type { SubLayerOutput } from './bert.ts';
import type { EncoderConfig } from './config.ts';

export const ADAPTER_CONFIG = 'adapter_config.json';
/** The weight files the library writes, safetensors first (it needs no unpickling). */
export const ADAPTER_WEIGHTS = ['adapter.safetensors', 'pytorch_adapter.bin'] as const;

export interface BottleneckConfig {
  mhAdapter: boolean;
  outputAdapter: boolean;
  reductionFactor: number | Record<string, number>;
  nonLinearity: string;
  originalLnBefore: boolean;
  originalLnAfter: boolean;
  lnBefore: boolean;
  lnAfter: boolean;
  residualBeforeLn: boolean | 'post_add';
  adapterResidualBeforeLn: boolean;
  scaling: number | 'learned' | 'channel';
  leaveOut: number[];
}

/** BnConfig's defaults, and the two presets a config may name by string (SeqBnConfig, DoubleSeqBnConfig). */
const BN_DEFAULTS = { original_ln_before: false, original_ln_after: true, ln_before: false, ln_after: false, residual_before_ln: true, adapter_residual_before_ln: false, scaling: 1.0, leave_out: [] };
const SEQ_BN = { ...BN_DEFAULTS, original_ln_before: true, mh_adapter: false, output_adapter: true, non_linearity: 'relu', reduction_factor: 16 };
const PRESETS: Record<string, Record<string, unknown>> = {
  seq_bn: SEQ_BN,
  pfeiffer: SEQ_BN,
  double_seq_bn: { ...BN_DEFAULTS, mh_adapter: true, output_adapter: true, non_linearity: 'swish', reduction_factor: 16 },
  houlsby: { ...BN_DEFAULTS, mh_adapter: true, output_adapter: true, non_linearity: 'swish', reduction_factor: 16 },
};

/** The activations the graph computes, by the names transformers' get_activation (and the library) accepts. */
const NON_LINEARITIES = ['relu', 'gelu', 'gelu_new', 'gelu_pytorch_tanh', 'swish', 'silu', 'tanh', 'sigmoid', 'leakyrelu', 'leaky_relu', 'linear'];

/** Keys that only shape training or parts the library leaves out at inference: any value is honoured. */
const INERT = new Set([
  'init_weights', 'init_weights_seed', 'dropout', 'stochastic_depth', 'cross_adapter', 'inv_adapter_reduction_factor',
  'phm_dim', 'factorized_phm_W', 'shared_W_phm', 'shared_phm_rule', 'factorized_phm_rule', 'phm_c_init', 'phm_init_range',
  'learn_phm', 'hypercomplex_nonlinearity', 'phm_rank', 'phm_bias',
]);
/** Keys whose only honoured value is the one given (what the graph does not compute). */
const FIXED: Record<string, unknown[]> = { architecture: [null, 'bottleneck'], is_parallel: [false], use_gating: [false], phm_layer: [false], inv_adapter: [null], invertible_adapter: [null] };

export interface Adapter {
  configFile: string;
  weightsFile: string;
  name: string;
  config: BottleneckConfig;
  /** The adapter's tensors by `encoder.layer.{i}.{attention.output|output}.{param}`. */
  tensors: Map<string, CheckpointTensor>;
}

/** The adapter folder's config and weight file; undefined weights when none is there. */
export function adapterFiles(dir: string): { config: string; weights: string | undefined } {
  return { config: join(dir, ADAPTER_CONFIG), weights: ADAPTER_WEIGHTS.map((f) => join(dir, f)).find((f) => existsSync(f)) };
}

/** Read and check an adapter folder against the base model's config. */
export function readAdapter(dir: string, base: EncoderConfig): Adapter {
  const files = adapterFiles(dir);
  const file = files.config;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new CitebenchError(`${file}: cannot read the adapter config (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const bad = (key: string, why: string): never => {
    throw new CitebenchError(`${file} [${key}]: ${why}`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CitebenchError(`${file}: not a JSON object`);
  if (base.modelType === 'modernbert') bad('model_type', `adapters are applied to BERT, RoBERTa and XLM-RoBERTa encoders, and the base model (${base.file}) is modernbert`);
  if (raw.model_type !== undefined && raw.model_type !== base.modelType) bad('model_type', `${JSON.stringify(raw.model_type)} is not the base model's "${base.modelType}" (${base.file})`);
  if (raw.hidden_size !== undefined && raw.hidden_size !== base.hiddenSize) bad('hidden_size', `${JSON.stringify(raw.hidden_size)} is not the base model's ${base.hiddenSize} (${base.file})`);
  if (typeof raw.name !== 'string' || raw.name === '') bad('name', `${JSON.stringify(raw.name)} is not the adapter's name`);
  let c = raw.config;
  if (typeof c === 'string') c = PRESETS[c] ?? bad('config', `${JSON.stringify(c)} is not a bottleneck config citebench applies (${Object.keys(PRESETS).join(', ')})`);
  if (typeof c !== 'object' || c === null || Array.isArray(c)) bad('config', 'not an object');
  const config = bottleneck(c as Record<string, unknown>, (key, why) => bad(`config.${key}`, why), raw.version === undefined);
  if (!files.weights) throw new CitebenchError(`${dir}: no adapter weights (${ADAPTER_WEIGHTS.join(' or ')}) beside ${ADAPTER_CONFIG}`);
  const stored = files.weights.endsWith('.safetensors') ? readSafetensorsFile(files.weights) : readTorchFile(files.weights);
  return { configFile: file, weightsFile: files.weights, name: raw.name as string, config, tensors: adapterTensors(stored, raw.name as string) };
}

function bottleneck(c: Record<string, unknown>, bad: (key: string, why: string) => never, legacy: boolean): BottleneckConfig {
  for (const [key, v] of Object.entries(c)) {
    if (INERT.has(key)) continue;
    if (key in FIXED) {
      if (!FIXED[key]!.includes(v)) bad(key, `${JSON.stringify(v)} is not computed by citebench (only ${FIXED[key]!.map((x) => JSON.stringify(x)).join(' or ')})`);
    } else if (!(key in BN_DEFAULTS) && !['mh_adapter', 'output_adapter', 'reduction_factor', 'non_linearity'].includes(key))
      bad(key, 'not a bottleneck adapter key citebench knows; refusing to guess what it changes');
  }
  const v: Record<string, unknown> = { ...BN_DEFAULTS, ...c };
  for (const key of ['mh_adapter', 'output_adapter', 'reduction_factor', 'non_linearity']) if (v[key] === undefined) bad(key, 'missing (BnConfig requires it)');
  const bool = (key: string): boolean => (typeof v[key] === 'boolean' ? (v[key] as boolean) : bad(key, `${JSON.stringify(v[key])} is not true or false`));
  const rf = v.reduction_factor;
  const positive = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;
  if (!positive(rf) && !(typeof rf === 'object' && rf !== null && !Array.isArray(rf) && Object.values(rf).every(positive)))
    bad('reduction_factor', `${JSON.stringify(rf)} is not a positive number or a mapping of layer ids to positive numbers`);
  let act = v.non_linearity;
  if (typeof act !== 'string') bad('non_linearity', `${JSON.stringify(act)} is not an activation name`);
  act = (act as string).toLowerCase();
  // The library renames these in configs saved before it kept a version (loading.py, ACTIVATION_RENAME).
  if (legacy && act === 'gelu') act = 'gelu_new';
  else if (legacy && act === 'gelu_orig') act = 'gelu';
  if (!NON_LINEARITIES.includes(act as string)) bad('non_linearity', `${JSON.stringify(v.non_linearity)} is not one citebench computes (${NON_LINEARITIES.join(', ')})`);
  const rbl = v.residual_before_ln;
  if (rbl !== true && rbl !== false && rbl !== 'post_add') bad('residual_before_ln', `${JSON.stringify(rbl)} is not true, false or "post_add"`);
  if (rbl === 'post_add' && v.original_ln_before !== true) bad('residual_before_ln', '"post_add" needs original_ln_before true (the library fails on this combination)');
  const sc = v.scaling;
  if (!(typeof sc === 'number' && Number.isFinite(sc)) && sc !== 'learned' && sc !== 'channel') bad('scaling', `${JSON.stringify(sc)} is not a number, "learned" or "channel"`);
  const leave = v.leave_out;
  if (!Array.isArray(leave) || !leave.every((x) => Number.isSafeInteger(x))) bad('leave_out', `${JSON.stringify(leave)} is not a list of layer ids`);
  return {
    mhAdapter: bool('mh_adapter'),
    outputAdapter: bool('output_adapter'),
    reductionFactor: rf as BottleneckConfig['reductionFactor'],
    nonLinearity: act as string,
    originalLnBefore: bool('original_ln_before'),
    originalLnAfter: bool('original_ln_after'),
    lnBefore: bool('ln_before'),
    lnAfter: bool('ln_after'),
    residualBeforeLn: rbl as BottleneckConfig['residualBeforeLn'],
    adapterResidualBeforeLn: bool('adapter_residual_before_ln'),
    scaling: sc as BottleneckConfig['scaling'],
    leaveOut: leave as number[],
  };
}

/** Old weight names the library still loads (loading.py, legacy_weights_mapping). */
const LEGACY_NAMES: [string, string][] = [
  ['attention_text_task_adapters', 'adapters'],
  ['attention_text_lang_adapters', 'adapters'],
  ['layer_text_task_adapters', 'adapters'],
  ['layer_text_lang_adapters', 'adapters'],
];

/** The stored tensors of adapter `name` (the library's filter: `.adapters.{name}.`), under any model prefix. */
function adapterTensors(stored: Map<string, CheckpointTensor>, name: string): Map<string, CheckpointTensor> {
  const out = new Map<string, CheckpointTensor>();
  const marker = `.adapters.${name}.`;
  for (const [key, t] of stored) {
    let k = key;
    for (const [old, now] of LEGACY_NAMES) k = k.split(old).join(now);
    const at = k.indexOf(marker);
    const m = at < 0 ? null : /(?:^|\.)(encoder\.layer\.\d+\.(?:attention\.output|output))$/.exec(k.slice(0, at));
    if (m) out.set(`${m[1]}.${k.slice(at + marker.length)}`, t);
  }
  return out;
}

/** The sub-layer ends with the adapter where the config puts one, LayerNorm(h + input) elsewhere. */
export function adapterSubLayerOutput(a: Adapter, base: EncoderConfig, plain: SubLayerOutput): SubLayerOutput {
  const c = a.config;
  const H = base.hiddenSize;
  const where = `${a.weightsFile}: adapter '${a.name}'`;
  /** Tensor `rest` of the adapter at sub-layer `p`, named in the graph by its key without the adapter's name. */
  const param = (p: string, rest: string, shape: number[]): Param => {
    const key = `${p}.${rest}`;
    const t = a.tensors.get(key);
    if (!t) throw new CitebenchError(`${where}: tensor '${p}.adapters.${a.name}.${rest}' is missing (${a.configFile} calls for it)`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]) || !['F32', 'F16', 'BF16'].includes(t.dtype))
      throw new CitebenchError(`${where}: tensor '${t.name}' is ${t.dtype} [${t.shape.join(', ')}], ${a.configFile} implies floats [${shape.join(', ')}]`);
    return { name: key, tensor: t };
  };
  return (g, layer, loc, h, input, norm, names) => {
    const on = loc === 'attention' ? c.mhAdapter : c.outputAdapter;
    if (!on || c.leaveOut.includes(layer)) return plain(g, layer, loc, h, input, norm, names);
    const p = `encoder.layer.${layer}.${loc === 'attention' ? 'attention.output' : 'output'}`;
    const rf = typeof c.reductionFactor === 'number' ? c.reductionFactor : (c.reductionFactor[String(layer)] ?? c.reductionFactor.default);
    if (rf === undefined) throw new CitebenchError(`${a.configFile} [config.reduction_factor]: no value for layer ${layer} and no "default"`);
    const down = Math.max(1, Math.floor(H / rf)); // int(hidden_size // reduction_factor), at least 1
    const n = (s: string) => `${p}.adapter.${s}`;
    const ln = (x: string, key: string, out: string) => g.layerNorm(x, param(p, `${key}.weight`, [H]), param(p, `${key}.bias`, [H]), 1e-5, out); // nn.LayerNorm's eps
    // pre_forward
    let residual = c.residualBeforeLn === true ? h : '';
    let x = h;
    if (c.originalLnBefore) {
      x = g.node('Add', [h, input], n('pre_res'));
      if (c.residualBeforeLn === 'post_add') residual = x;
      x = norm(x, n('pre_ln'));
    }
    if (c.residualBeforeLn === false) residual = x;
    // forward: adapter_down = [LayerNorm], Linear, activation; adapter_up; scaling; residual around an optional LayerNorm.
    const d0 = c.lnBefore ? 1 : 0;
    if (c.lnBefore) x = ln(x, 'adapter_down.0', n('ln_before'));
    x = g.linear(x, param(p, `adapter_down.${d0}.weight`, [down, H]), param(p, `adapter_down.${d0}.bias`, [down]), n('down'));
    x = activation(g, c.nonLinearity, x, n('act'));
    let out = g.linear(x, param(p, 'adapter_up.weight', [H, down]), param(p, 'adapter_up.bias', [H]), n('up'));
    if (typeof c.scaling === 'number') {
      if (c.scaling !== 1) out = g.node('Mul', [out, g.scalar(`c.scaling${c.scaling}`, c.scaling)], n('scaled'));
    } else out = g.node('Mul', [out, g.weight(param(p, 'scaling', c.scaling === 'learned' ? [1] : [H]))], n('scaled'));
    if (c.adapterResidualBeforeLn) out = g.node('Add', [out, residual], n('res'));
    if (c.lnAfter) out = ln(out, 'adapter_norm_after', n('ln_after'));
    if (!c.adapterResidualBeforeLn) out = g.node('Add', [out, residual], n('res'));
    // post_forward
    return c.originalLnAfter ? norm(g.node('Add', [out, input], n('post_res')), names.out) : out;
  };
}

/** The adapter's non-linearity (transformers' activations: GELU exact or tanh form, SiLU, …). */
function activation(g: GraphBuilder, name: string, x: string, out: string): string {
  switch (name) {
    case 'relu':
      return g.node('Relu', [x], out);
    case 'gelu':
      return g.gelu(x, out);
    case 'gelu_new':
    case 'gelu_pytorch_tanh': {
      // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
      const cube = g.node('Mul', [g.node('Mul', [x, x], `${out}.x2`), x], `${out}.x3`);
      const inner = g.node('Mul', [g.node('Add', [x, g.node('Mul', [cube, g.scalar('c.gelu_k', 0.044715)], `${out}.kx3`)], `${out}.sum`), g.scalar('c.sqrt2pi', Math.sqrt(2 / Math.PI))], `${out}.inner`);
      const t = g.node('Add', [g.node('Tanh', [inner], `${out}.tanh`), 'c.f1'], `${out}.t1`);
      return g.node('Mul', [g.node('Mul', [x, t], `${out}.xt`), 'c.half'], out);
    }
    case 'swish':
    case 'silu':
      return g.node('Mul', [x, g.node('Sigmoid', [x], `${out}.sig`)], out);
    case 'tanh':
      return g.node('Tanh', [x], out);
    case 'sigmoid':
      return g.node('Sigmoid', [x], out);
    case 'leakyrelu':
    case 'leaky_relu':
      return g.node('LeakyRelu', [x], out, { alpha: { f: 0.01 } });
    default:
      return x; // linear
  }
}
