/**
 * A reranker from its name, hub id or folder, as a PairScorer. Where it lives is the encoders' rule
 * (models.ts locateModelFolder: a registry name of registry.ts KNOWN_RERANKERS, `ORG/NAME` as
 * `<modelsDir>/ORG--NAME/`, or a folder), downloaded with allowRemote as the encoders are. The folder's form:
 * - a causal LM (config.json architectures `…ForCausalLM`, sentence_bert_config.json `transformer_task:
 *   text-generation`, or a registry entry of kind causal-lm): causal-lm.ts;
 * - a sequence-classification checkpoint, plain transformers folder or sentence-transformers CrossEncoder
 *   folder: its graph built with the classification head (encoder-graph/classifier.ts, converted once into the
 *   folder's cache), or its ONNX export with a `logits` output; both run by cross-encoder.ts.
 * The settings are CrossEncoder's (sentence-transformers 6, cross_encoder/model.py): the activation from
 * config_sentence_transformers.json `activation_fn`, else config.json `sentence_transformers.activation_fn` or
 * `sbert_ce_default_activation_function`, else Sigmoid for one label (Identity for two); the length from
 * sentence_bert_config.json `max_seq_length`, else tokenizer_config.json `model_max_length` capped by
 * max_position_embeddings. A registry entry's card settings and the options win over the folder's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sha256 } from '../../util/identity.ts';
import { readJsonObjectIf } from '../../util/json.ts';
import { CitebenchError, InputError } from '../../util/errors.ts';
import { checkpointFiles } from '../dense/checkpoint/index.ts';
import { convertCheckpoint } from '../dense/convert.ts';
import { maxTokens, readEncoderConfig, readNumLabels } from '../dense/encoder-graph/index.ts';
import { fileContentHash } from '../dense/file-hash.ts';
import { fetchModelFolder, locateModelFolder, modelsDirOf, pickOnnx } from '../dense/models.ts';
import { KNOWN_RERANKERS, knownReranker } from '../dense/registry.ts';
import { tokenizerFiles } from '../dense/wordpiece.ts';
import { loadPairTokenizer } from '../dense/tokenizer.ts';
import { ACTIVATIONS, CrossEncoderScorer, type ActivationName } from './cross-encoder.ts';
import { loadCausalReranker } from './causal-lm.ts';
import type { PairScorer } from './pair-scorer.ts';
import type { RerankerOptions } from './options.ts';

export type { RerankerOptions } from './options.ts';

const MODULES = 'modules.json';
const ST_CONFIG = 'config_sentence_transformers.json';
const TRANSFORMER_CONFIG = 'sentence_bert_config.json';


/** A CrossEncoder folder's modules: the Transformer's folder, and whether a LogitScore module follows (a causal LM). */
function readModules(dir: string): { transformerDir: string; logitScore: boolean; files: string[] } | undefined {
  const file = join(dir, MODULES);
  if (!existsSync(file)) return undefined;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(raw) || raw.length === 0) throw new InputError(file, undefined, undefined, 'must be a JSON list of modules');
  const types = raw.map((m) => String((m as { type?: unknown }).type ?? ''));
  const kind = (t: string) => t.split('.').at(-1)!;
  if (kind(types[0]) !== 'Transformer') throw new InputError(file, undefined, '0.type', `${types[0]}: a CrossEncoder folder starts with a Transformer module`);
  const logitScore = types.slice(1).some((t) => kind(t) === 'LogitScore');
  const other = types.slice(1).find((t) => kind(t) !== 'LogitScore');
  if (other) throw new InputError(file, undefined, 'type', `${other}: citebench reranks with a CrossEncoder's Transformer module alone (sequence classification) or with LogitScore (a causal LM)`);
  const path = (raw[0] as { path?: unknown }).path ?? '';
  if (typeof path !== 'string' || path.includes('..')) throw new InputError(file, undefined, '0.path', `${JSON.stringify(path)} is not a folder inside the model folder`);
  return { transformerDir: path ? join(dir, path) : dir, logitScore, files: [file] };
}

/** torch.nn.modules.activation.Sigmoid → Sigmoid; a path outside torch is what CrossEncoder ignores without trust_remote_code. */
function activationOf(path: unknown, file: string, key: string): ActivationName | undefined {
  if (path === undefined || path === null) return undefined;
  if (typeof path !== 'string') throw new InputError(file, undefined, key, `${JSON.stringify(path)} is not a class path`);
  // CrossEncoder._resolve_activation_fn: only torch.* paths load without trust_remote_code; others fall back to the default.
  if (!path.startsWith('torch.')) return undefined;
  const name = path.split('.').at(-1)!;
  if (!Object.hasOwn(ACTIVATIONS, name)) throw new InputError(file, undefined, key, `${path}: citebench applies ${Object.keys(ACTIVATIONS).join(', ')}`);
  return name as ActivationName;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

/**
 * Resolve and load a reranker: a registry name (KNOWN_RERANKERS), a hub id ORG/NAME (`<modelsDir>/ORG--NAME/`), or a
 * folder. A causal-LM folder goes to loadCausalReranker; a sequence-classification one is scored as
 * CrossEncoder.predict scores it.
 */
export async function loadReranker(nameOrDir: string, opts: RerankerOptions = {}): Promise<PairScorer> {
  const at = locateModelFolder(nameOrDir, modelsDirOf(opts), {
    names: KNOWN_RERANKERS.map((m) => m.name),
    find: knownReranker,
    hint: 'A reranker folder holds config.json, a tokenizer and a sequence-classification checkpoint (model.safetensors or pytorch_model.bin, as transformers or sentence-transformers save it) or its ONNX export; --allow-remote downloads a registry name or ORG/NAME (docs/rerank.md).',
  });
  // The checkpoint, not an ONNX export the repo may carry: it is what citebench's graph was checked against.
  await fetchModelFolder(at.repo, at.dir, { ...opts, checkpoint: !opts.quantized && !opts.fp16 });
  const dir = at.dir;
  if (!existsSync(dir))
    throw new CitebenchError(`reranker '${nameOrDir}' is not available locally: folder ${dir} does not exist${at.repo ? ` (--allow-remote downloads ${at.repo} from the Hugging Face hub)` : ''}`);
  const modules = readModules(dir);
  const tdir = modules?.transformerDir ?? dir;
  const configPath = join(tdir, 'config.json');
  const config = readJsonObjectIf(configPath);
  if (!config) throw new CitebenchError(`${dir}: no config.json${modules ? ` in the Transformer module's folder ${tdir}` : ''}: not a model folder`);
  const tcfgPath = join(tdir, TRANSFORMER_CONFIG);
  const tcfg = readJsonObjectIf(tcfgPath);
  const arch = Array.isArray(config.architectures) ? config.architectures.map(String) : [];
  if (at.known?.kind === 'causal-lm' || modules?.logitScore || tcfg?.transformer_task === 'text-generation' || arch.some((a) => a.endsWith('ForCausalLM')))
    return loadCausalReranker(dir, { ...opts, maxLength: opts.maxLength ?? at.known?.maxLength });
  if (opts.instruction !== undefined) throw new CitebenchError(`reranker '${nameOrDir}': a cross-encoder (sequence classification) takes no instruction; an instruction is for LLM rerankers`);
  if (tcfg?.transformer_task !== undefined && tcfg.transformer_task !== 'sequence-classification')
    throw new InputError(tcfgPath, undefined, 'transformer_task', `${JSON.stringify(tcfg.transformer_task)}: a reranker is a sequence-classification or text-generation Transformer`);
  const stConfigPath = join(dir, ST_CONFIG);
  const stConfig = readJsonObjectIf(stConfigPath);
  if (stConfig && stConfig.model_type !== undefined && stConfig.model_type !== 'CrossEncoder')
    throw new InputError(stConfigPath, undefined, 'model_type', `${JSON.stringify(stConfig.model_type)}: not a CrossEncoder folder (an embedding model is an encoder: --model)`);

  // Weights: an ONNX export (preferred variant), else the checkpoint's graph with its head, converted once.
  const tok = tokenizerFiles(tdir);
  if (!tok) throw new CitebenchError(`${tdir}: no tokenizer (tokenizer.json or a BERT vocab.txt)`);
  if (opts.fp16 && opts.quantized) throw new CitebenchError(`reranker '${nameOrDir}': fp16 and quantized exclude each other`);
  const numLabels = readNumLabels(configPath);
  let onnxFile = pickOnnx(tdir, opts.fp16 ? 'fp16' : opts.quantized ? 'quantized' : 'fp32');
  const checkpoint = onnxFile ? undefined : checkpointFiles(tdir);
  if (!onnxFile && !checkpoint) throw new CitebenchError(`${tdir}: no weights (a checkpoint: model.safetensors, pytorch_model.bin or their sharded index; or onnx/model.onnx)`);
  // The graph is built for the architectures citebench computes; an ONNX export may be of any.
  const encoderConfig = checkpoint ? readEncoderConfig(configPath, 'sequence-classification') : undefined;
  if (!onnxFile) onnxFile = convertCheckpoint(tdir, { task: 'sequence-classification', quantize: opts.quantized, log: opts.log });

  // Activation: the card's (registry), else CrossEncoder's rule.
  const st = config.sentence_transformers as Record<string, unknown> | undefined;
  const activation: ActivationName =
    at.known?.activation ??
    activationOf(stConfig?.activation_fn, stConfigPath, 'activation_fn') ??
    activationOf(st?.activation_fn, configPath, 'sentence_transformers.activation_fn') ??
    activationOf(config.sbert_ce_default_activation_function, configPath, 'sbert_ce_default_activation_function') ??
    (numLabels === 1 ? 'Sigmoid' : 'Identity');

  // Length: the option, the card's, max_seq_length, else model_max_length capped by max_position_embeddings.
  const tokCfg = readJsonObjectIf(join(tdir, 'tokenizer_config.json'));
  const modelMax = positiveInt(tokCfg?.model_max_length);
  const folderMax = positiveInt(tcfg?.max_seq_length) ?? Math.min(modelMax !== undefined && modelMax < 1e29 ? modelMax : Infinity, positiveInt(config.max_position_embeddings) ?? Infinity);
  let maxLength = opts.maxLength ?? at.known?.maxLength ?? (Number.isFinite(folderMax) ? folderMax : 512);
  // Past the position table the model cannot read (RoBERTa's 514 rows hold 512 tokens): PyTorch would fail there too.
  if (encoderConfig) maxLength = Math.min(maxLength, maxTokens(encoderConfig));
  if (!Number.isInteger(maxLength) || maxLength < 4) throw new CitebenchError(`reranker '${nameOrDir}': max length ${maxLength} is not an integer ≥ 4`);

  const lowercase = tcfg?.do_lower_case === true;
  const tokenizer = loadPairTokenizer(tdir, { lowercase });
  const padId = positiveInt(config.pad_token_id) ?? 0;
  const files = [configPath, ...tok.files, ...[tcfgPath, stConfigPath, join(tdir, 'tokenizer_config.json')].filter((f) => existsSync(f))];
  const fingerprint = sha256()
    .update(fileContentHash(onnxFile))
    .update(checkpoint ? basename(dirname(onnxFile)) : '')
    .update(files.map((f) => `${basename(f)}:${fileContentHash(f)}`).join('\n'))
    .update(JSON.stringify({ reranker: 'cross-encoder', version: 1, maxLength, activation, numLabels, lowercase, truncation: 'longest_first' }))
    .hex(32);
  const arch0 = arch[0] ?? `${String(config.model_type)} sequence classification`;
  const describe = `sequence classification (${arch0}${checkpoint ? '' : ', ONNX export'}), ${numLabels === 1 ? activation : 'P(label 1)'}, max ${maxLength} tokens`;
  opts.log?.(`reranker ${at.name}: ${describe}`);
  return CrossEncoderScorer.load(
    { name: at.name, fingerprint, describe, onnxFile, tokenizer, maxLength, padId, numLabels, activation },
    { batchSize: opts.batchSize, threads: opts.threads, device: opts.device, log: opts.log },
  );
}

/** Where a reranker argument lives (for messages and dry runs): its folder and hub repo, without loading it. */
export function rerankerFolder(nameOrDir: string, opts: Pick<RerankerOptions, 'modelsDir'> = {}): { dir: string; name: string; repo?: string } {
  const at = locateModelFolder(nameOrDir, modelsDirOf(opts), { names: KNOWN_RERANKERS.map((m) => m.name), find: knownReranker });
  return { dir: resolve(at.dir), name: at.name, ...(at.repo ? { repo: at.repo } : {}) };
}
