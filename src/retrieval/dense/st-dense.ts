/**
 * sentence-transformers `Dense` modules (6.x base/modules/dense.py), as EmbeddingGemma's `2_Dense` and `3_Dense`:
 * y = activation(x·Wᵀ + b) on the pooled vector, optionally + x (use_residual; through a bias-free projection when
 * the sizes differ), in any number after Pooling and before Normalize. The module's folder holds `config.json`
 * (`in_features`, `out_features`, `bias` (default true), `activation_function` (default Tanh, the library's),
 * `use_residual`, `module_input_name`) and its weights (`linear.weight`, `linear.bias`, `residual.weight`) in
 * `model.safetensors` or `pytorch_model.bin`, read by the checkpoint readers (a pickle is parsed, never run).
 * Products are summed in float64 and rounded once (torch sums in float32: agreement to float32 rounding).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../util/errors.ts';
import { readCheckpoint } from './checkpoint/index.ts';

/** The activations a Dense module's config.json can name, by their full torch class path. */
const ACTIVATIONS = {
  'torch.nn.modules.linear.Identity': (x: number) => x,
  'torch.nn.modules.activation.Tanh': Math.tanh,
  'torch.nn.modules.activation.ReLU': (x: number) => (x > 0 ? x : 0),
  'torch.nn.modules.activation.Sigmoid': (x: number) => 1 / (1 + Math.exp(-x)),
} as const;
export type DenseActivation = keyof typeof ACTIVATIONS;

/** A Dense module as its config.json describes it (weights are read when an encoder is made). */
export interface DenseSpec {
  /** The module's folder. */
  dir: string;
  inFeatures: number;
  outFeatures: number;
  bias: boolean;
  activation: DenseActivation;
  residual: boolean;
}

export interface DenseModule extends DenseSpec {
  /** [out, in], row-major as nn.Linear stores it. */
  weight: Float32Array;
  biasValues?: Float32Array;
  /** use_residual with in ≠ out: the projection of the input, [out, in]. */
  residualWeight?: Float32Array;
}

function int(c: Record<string, unknown>, file: string, key: string): number {
  const v = c[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new InputError(file, undefined, key, `must be a positive integer, got ${JSON.stringify(v)}`);
  return v;
}

/** A Dense module's config.json, checked; every unsupported setting one line naming the file and key. */
export function readDenseSpec(dir: string): DenseSpec {
  const file = join(dir, 'config.json');
  if (!existsSync(file)) throw new InputError(file, undefined, undefined, 'missing: the Dense module of modules.json has no config.json');
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new InputError(file, undefined, undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new InputError(file, undefined, undefined, 'must be a JSON object');
  const act = c.activation_function ?? 'torch.nn.modules.activation.Tanh';
  if (typeof act !== 'string' || !(act in ACTIVATIONS))
    throw new InputError(file, undefined, 'activation_function', `${JSON.stringify(act)} is not one citebench computes (${Object.keys(ACTIVATIONS).join(', ')})`);
  const bias = c.bias ?? true;
  if (typeof bias !== 'boolean') throw new InputError(file, undefined, 'bias', 'must be true or false');
  const residual = c.use_residual ?? false;
  if (typeof residual !== 'boolean') throw new InputError(file, undefined, 'use_residual', 'must be true or false');
  for (const key of ['module_input_name', 'module_output_name'])
    if (c[key] !== undefined && c[key] !== null && c[key] !== 'sentence_embedding')
      throw new InputError(file, undefined, key, `${JSON.stringify(c[key])}: citebench applies Dense modules to the sentence embedding only`);
  return { dir, inFeatures: int(c, file, 'in_features'), outFeatures: int(c, file, 'out_features'), bias, activation: act as DenseActivation, residual };
}

/** The module's weights, shape-checked against its config.json. */
export function loadDense(spec: DenseSpec): DenseModule {
  const ck = readCheckpoint(spec.dir);
  const where = ck.files.join(', ');
  const tensor = (name: string, shape: number[]): Float32Array => {
    const t = ck.tensors.get(name);
    if (!t) throw new InputError(where, undefined, name, `missing (the Dense module's config.json: in_features ${spec.inFeatures}, out_features ${spec.outFeatures}, bias ${spec.bias})`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))
      throw new InputError(where, undefined, name, `has shape [${t.shape.join(', ')}], ${join(spec.dir, 'config.json')} implies [${shape.join(', ')}]`);
    return t.float32();
  };
  return {
    ...spec,
    weight: tensor('linear.weight', [spec.outFeatures, spec.inFeatures]),
    ...(spec.bias ? { biasValues: tensor('linear.bias', [spec.outFeatures]) } : {}),
    ...(spec.residual && spec.inFeatures !== spec.outFeatures ? { residualWeight: tensor('residual.weight', [spec.outFeatures, spec.inFeatures]) } : {}),
  };
}

/** One module applied to a vector of in_features values. */
export function applyDense(m: DenseModule, x: Float32Array): Float32Array {
  const { inFeatures: n, outFeatures: k } = m;
  const f = ACTIVATIONS[m.activation];
  const out = new Float32Array(k);
  for (let o = 0; o < k; o++) {
    let s = m.biasValues ? m.biasValues[o]! : 0;
    const row = o * n;
    for (let i = 0; i < n; i++) s += m.weight[row + i]! * x[i]!;
    let y = Math.fround(f(Math.fround(s)));
    if (m.residual) {
      if (m.residualWeight) {
        let r = 0;
        for (let i = 0; i < n; i++) r += m.residualWeight[row + i]! * x[i]!;
        y += Math.fround(r);
      } else y += x[o]!;
    }
    out[o] = y;
  }
  return out;
}
