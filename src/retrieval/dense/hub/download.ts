/**
 * Opt-in download of a model folder or an adapter from the Hugging Face hub (`--allow-remote`): the files
 * citebench can use, in the layout the repo has.
 * - A model: a sentence-transformers folder's modules.json, config_sentence_transformers.json, Pooling config,
 *   Dense modules (config and weights),
 *   and the Transformer module's sentence_bert_config.json (when the repo has them); then, in the Transformer
 *   module's folder (the repo itself or a subfolder), config.json; tokenizer.json, else vocab.txt;
 *   tokenizer_config.json and special_tokens_map.json when present; and one set of weights: an ONNX export when
 *   the repo has one (unless the checkpoint is asked for, as an adapter needs), else the PyTorch checkpoint
 *   (model.safetensors, its sharded index, pytorch_model.bin or its sharded index), which the caller converts.
 * - An adapter saved by the adapters library: adapter_config.json and adapter.safetensors or pytorch_adapter.bin.
 * Files stream into a hidden sibling temporary folder (temp-folder.ts) that is renamed into place when
 * complete: a folder at the final path is always whole, with its citebench-download.json (record.ts). A killed
 * or broken download is resumed by the next one of the same repo and revision (session.ts).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '../../../util/atomic.ts';
import { CitebenchError } from '../../../util/errors.ts';
import { onnxNames, type OnnxVariant } from '../onnx-variant.ts';
import { CHECKPOINT_FILES } from '../checkpoint/index.ts';
import { MODULES_FILE, ST_CONFIG_FILE, TRANSFORMER_CONFIG_FILES, readModules } from '../st-folder.ts';
import { endpointOf } from './ids.ts';
import { DOWNLOAD_RECORD, readDownloadRecord, type DownloadedFile, type DownloadRecord } from './record.ts';
import { final, isFinal, PARTIAL_STATE, Session } from './session.ts';
import { claimTemp, releaseTemp } from './temp-folder.ts';

/** PyTorch checkpoints, in the order they are fetched when the repo has no ONNX export (the order they are read in). */
export const PYTORCH_WEIGHT_FILES = CHECKPOINT_FILES;
/** An adapter's weights as the adapters library saves them, safetensors first. */
export const ADAPTER_WEIGHT_FILES = ['adapter.safetensors', 'pytorch_adapter.bin'] as const;

export interface HubOptions {
  /** Default: $HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  /** Sent as `Authorization: Bearer …`; default: $HF_TOKEN. */
  token?: string;
  /** Branch, tag or commit (default `main`). */
  revision?: string;
  /** Which ONNX export to fetch first when the repo has ONNX files (default fp32; onnx-variant.ts). */
  variant?: OnnxVariant;
  /** Fetch the PyTorch checkpoint even when the repo has an ONNX export (an adapter is added to the checkpoint). */
  checkpoint?: boolean;
  /** Bytes, rate and ETA on stderr (default: stderr is a TTY and CI is unset). */
  progress?: boolean;
  /** One line when the download starts and one when it ends. */
  log?: (line: string) => void;
  /** Appended to the "no weights" error. */
  hint?: string;
}

/** Raised when the repo has no weights citebench can use (no ONNX export, no PyTorch checkpoint). */
export class NoWeightsError extends CitebenchError {
  override name = 'NoWeightsError';
}

/** What a plan fetches: `get(file)` makes one file complete (false: the hub has none); returns the weights' label. */
type Plan = (get: (file: string) => Promise<boolean>, tmp: string, s: Session) => Promise<string>;

/**
 * Download model `repo` into `dir`. Throws CitebenchError (one line, plus the hint), never leaves `dir`
 * half-written. When `dir` already holds a download of the same repo and revision nothing is requested;
 * another existing `dir` is an error.
 */
export async function downloadModel(repo: string, dir: string, opts: HubOptions = {}): Promise<void> {
  await downloadRepo(repo, dir, opts, (get, tmp, s) => modelPlan(get, tmp, s, opts));
}

/** Download an adapter repo (adapters library format) into `dir`, as downloadModel does a model. */
export async function downloadAdapter(repo: string, dir: string, opts: HubOptions = {}): Promise<void> {
  await downloadRepo(repo, dir, opts, async (get, _tmp, s) => {
    if (!(await get('adapter_config.json')))
      throw final(new CitebenchError(`cannot download ${s.url('adapter_config.json')}: HTTP 404: no adapter ${repo} with revision '${s.revision}' at ${s.endpoint} (an adapter repo holds adapter_config.json)`));
    for (const f of ADAPTER_WEIGHT_FILES) if (await get(f)) return f;
    throw final(new NoWeightsError(`${repo} has no adapter weights on the hub (404 for ${ADAPTER_WEIGHT_FILES.join(', ')} at ${s.endpoint}, revision ${s.revision})`));
  });
}

async function modelPlan(get: (file: string) => Promise<boolean>, tmp: string, s: Session, opts: HubOptions): Promise<string> {
  const hint = opts.hint ? `\n${opts.hint}` : '';
  // A sentence-transformers folder: its module files, and the Transformer module's folder.
  let prefix = '';
  if (await get(MODULES_FILE)) {
    let mods;
    try {
      mods = readModules(tmp)!;
    } catch (e) {
      throw final(new CitebenchError(`${s.repo}: ${(e as Error).message.replace(tmp + '/', '')}`));
    }
    prefix = mods[0].path ? `${mods[0].path}/` : '';
    await get(ST_CONFIG_FILE);
    if (!(await get(`${mods[1].path ? `${mods[1].path}/` : ''}config.json`)) && mods[1].path)
      throw final(new CitebenchError(`${s.repo}: modules.json names a Pooling module in ${mods[1].path}/, but the hub has no ${mods[1].path}/config.json`));
    for (const f of TRANSFORMER_CONFIG_FILES) if (await get(`${prefix}${f}`)) break;
    // Dense modules (EmbeddingGemma's 2_Dense, 3_Dense): config and weights, safetensors first.
    for (const m of mods.filter((x) => x.kind === 'Dense')) {
      const at = m.path ? `${m.path}/` : '';
      if (!(await get(`${at}config.json`))) throw final(new CitebenchError(`${s.repo}: modules.json names a Dense module in ${m.path}/, but the hub has no ${at}config.json`));
      let found = false;
      for (const w of ['model.safetensors', 'pytorch_model.bin']) if ((found = await get(`${at}${w}`))) break;
      if (!found) throw final(new CitebenchError(`${s.repo}: the Dense module in ${m.path}/ has no weights on the hub (model.safetensors or pytorch_model.bin)`));
    }
  }
  if (!(await get(`${prefix}config.json`)))
    throw final(new CitebenchError(`cannot download ${s.url(`${prefix}config.json`)}: HTTP 404: no repository ${s.repo} with revision '${s.revision}' at ${s.endpoint}, or it has no ${prefix}config.json`));
  if (!(await get(`${prefix}tokenizer.json`)) && !(await get(`${prefix}vocab.txt`)))
    throw final(new CitebenchError(`${s.repo} has neither ${prefix}tokenizer.json nor ${prefix}vocab.txt on the hub (revision ${s.revision}): citebench cannot tokenize for it` + hint));
  await get(`${prefix}tokenizer_config.json`);
  await get(`${prefix}special_tokens_map.json`);
  const onnx = opts.checkpoint ? [] : onnxNames(opts.variant ?? 'fp32').map((n) => `${prefix}onnx/${n}`);
  const candidates = [...onnx, ...PYTORCH_WEIGHT_FILES.map((f) => `${prefix}${f}`)];
  let weights: string | undefined;
  for (const file of candidates) {
    if (!(await get(file))) continue;
    weights = file;
    break;
  }
  if (!weights)
    throw final(new NoWeightsError(`${s.repo} has no weights citebench can use on the hub (404 for ${candidates.join(', ')} at ${s.endpoint}, revision ${s.revision})` + hint));
  if (weights.endsWith('.index.json'))
    for (const shard of shardsOf(join(tmp, weights), weights))
      if (!(await get(`${prefix}${shard}`))) throw final(new CitebenchError(`${weights} [weight_map] lists ${shard}, but the hub has no such file (${s.url(`${prefix}${shard}`)}: 404)`));
  return weights;
}

async function downloadRepo(repo: string, dir: string, opts: HubOptions, plan: Plan): Promise<void> {
  const token = opts.token ?? (process.env.HF_TOKEN || undefined);
  const revision = opts.revision ?? 'main';
  const endpoint = endpointOf(opts.endpoint);
  if (existsSync(dir)) {
    const had = readDownloadRecord(dir);
    if (had && had.repo === repo && had.revision === revision) return;
    throw new CitebenchError(`${dir} already exists${had ? ` (${had.repo} at revision '${had.revision}')` : ''}: remove it to download ${repo} at revision '${revision}'`);
  }
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const tmp = claimTemp(parent, basename(dir), repo, revision);
  const s = new Session(repo, revision, endpoint, token, tmp, opts.progress);
  const resumed = Object.keys(s.state.done).length > 0 || readdirSync(tmp).some((n) => n !== PARTIAL_STATE);
  const t0 = performance.now();
  const fetchedBefore = new Set(Object.keys(s.state.done));
  const chosen: string[] = [];
  const get = async (file: string) => {
    const ok = await s.fetchFile(file);
    if (ok) chosen.push(file);
    return ok;
  };
  try {
    opts.log?.(`downloading ${repo} (revision ${revision}) from ${endpoint} into ${dir}${resumed ? ' (resuming an earlier download)' : ''}`);
    const weights = await plan(get, tmp, s);
    // Files of an earlier attempt that this one did not choose (the repo changed since) do not belong here.
    for (const f of filesUnder(tmp)) if (f !== PARTIAL_STATE && !chosen.includes(f)) unlinkSync(join(tmp, f));
    const files: Record<string, DownloadedFile> = {};
    for (const f of chosen) files[f] = s.state.done[f];
    const record: DownloadRecord = { repo, revision, endpoint, ...(s.state.commit ? { commit: s.state.commit } : {}), files };
    writeFileAtomic(join(tmp, DOWNLOAD_RECORD), JSON.stringify(record, null, 2) + '\n');
    rmSync(join(tmp, PARTIAL_STATE), { force: true });
    try {
      renameSync(tmp, dir);
    } catch (e) {
      // Another process finished the same download first: keep its folder.
      const code = (e as NodeJS.ErrnoException).code;
      if ((code === 'ENOTEMPTY' || code === 'EEXIST') && existsSync(dir) && statSync(dir).isDirectory()) rmSync(tmp, { recursive: true, force: true });
      else throw new CitebenchError(`cannot move the download into ${dir}: ${(e as Error).message}`);
    }
    const fetched = chosen.filter((f) => !fetchedBefore.has(f));
    const bytes = fetched.reduce((a, f) => a + files[f].bytes, 0);
    const secs = (performance.now() - t0) / 1000;
    opts.log?.(`downloaded ${chosen.length} files of ${repo} (${(bytes / 1e6).toFixed(1)} MB in ${secs.toFixed(1)} s; weights: ${weights}) into ${dir}`);
  } catch (e) {
    // Keep what a resumable failure (network, server, a cut transfer) fetched; drop the rest.
    const useful = existsSync(tmp) && readdirSync(tmp).some((n) => n !== PARTIAL_STATE);
    if (isFinal(e) || !useful) rmSync(tmp, { recursive: true, force: true });
    throw e;
  } finally {
    releaseTemp(tmp);
  }
}

/** Every file under `dir`, as `/`-separated relative paths. */
function filesUnder(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const n of readdirSync(join(dir, rel))) {
    const r = rel ? `${rel}/${n}` : n;
    if (statSync(join(dir, r)).isDirectory()) out.push(...filesUnder(dir, r));
    else out.push(r);
  }
  return out;
}

/** Shard file names of a sharded checkpoint's index (`weight_map` values), checked to be plain names. */
function shardsOf(indexPath: string, file: string): string[] {
  let weightMap: unknown;
  try {
    weightMap = (JSON.parse(readFileSync(indexPath, 'utf8')) as { weight_map?: unknown }).weight_map;
  } catch (e) {
    throw final(new CitebenchError(`${file} of the download: not JSON (${(e as Error).message})`));
  }
  if (!weightMap || typeof weightMap !== 'object' || Array.isArray(weightMap)) throw final(new CitebenchError(`${file} [weight_map]: missing or not an object`));
  const shards = [...new Set(Object.values(weightMap as Record<string, unknown>))].sort();
  for (const s of shards)
    if (typeof s !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(s) || s.includes('..'))
      throw final(new CitebenchError(`${file} [weight_map]: shard name ${JSON.stringify(s)} is not a plain file name`));
  if (shards.length === 0) throw final(new CitebenchError(`${file} [weight_map]: lists no shard`));
  return shards as string[];
}
