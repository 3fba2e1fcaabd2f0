/**
 * Opt-in download of a model folder from the Hugging Face hub (`--allow-remote`): only the files citebench
 * needs — config.json, tokenizer.json, tokenizer_config.json (when present) and one ONNX file — fetched from
 * `${endpoint}/${repo}/resolve/${revision}/${file}` with Node's fetch, streamed to disk, into a hidden sibling
 * temporary folder that is renamed into place when complete: a killed download never leaves a folder that
 * looks like a model (its temporary folder is removed by the next download of the same model).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, createWriteStream, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CitebenchError } from '../../util/errors.ts';
import { Progress } from '../../util/progress.ts';
import { onnxNames, type OnnxVariant } from './onnx-variant.ts';

export const DEFAULT_ENDPOINT = 'https://huggingface.co';
/** Written next to the downloaded files: where they came from (repo, revision, endpoint, sizes). */
export const DOWNLOAD_RECORD = 'citebench-download.json';

export interface HubOptions {
  /** Default: $HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  /** Sent as `Authorization: Bearer …`; default: $HF_TOKEN. */
  token?: string;
  /** Branch, tag or commit (default `main`). */
  revision?: string;
  /** Which ONNX export to fetch first (default fp32; the others are fallbacks, onnx-variant.ts). */
  variant?: OnnxVariant;
  /** Byte counts and rate on stderr (default: stderr is a TTY and CI is unset). */
  progress?: boolean;
  /** One line when the download starts and one when it ends. */
  log?: (line: string) => void;
}

/** Raised when the repo has neither onnx/model.onnx nor onnx/model_quantized.onnx. */
export class NoOnnxWeightsError extends CitebenchError {
  override name = 'NoOnnxWeightsError';
}

/** `ORG/NAME` (one slash, hub-legal characters), not a path like `./x`, `/x` or `a/b/c`. */
export function isHubId(s: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s) && !s.includes('..');
}

/** Local folder name of a hub repo: `ORG/NAME` → `ORG--NAME`. */
export function hubFolderName(repo: string): string {
  return repo.replace('/', '--');
}

export function hubEndpoint(opts: Pick<HubOptions, 'endpoint'> = {}): string {
  return (opts.endpoint ?? process.env.HF_ENDPOINT ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
}

export function fileUrl(repo: string, file: string, opts: Pick<HubOptions, 'endpoint' | 'revision'> = {}): string {
  return `${hubEndpoint(opts)}/${repo}/resolve/${encodeURIComponent(opts.revision ?? 'main')}/${file}`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** GET a hub file. Returns undefined on 404 (the caller decides whether that is an error). */
async function open(url: string, token: string | undefined): Promise<Response | undefined> {
  let res: Response;
  try {
    res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {}, redirect: 'follow' });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (e as Error).message;
    throw new CitebenchError(`cannot download ${url}: ${oneLine(String(why))}`);
  }
  if (res.status === 404) {
    await res.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    const code = res.headers.get('x-error-code');
    const hint =
      res.status === 401 || res.status === 403
        ? token
          ? ': is HF_TOKEN allowed to read this repository (gated or private)?'
          : ': repository not found, private or gated? set HF_TOKEN for private or gated repositories'
        : '';
    throw new CitebenchError(`cannot download ${url}: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${code ? ` (${code})` : ''}${hint}`);
  }
  return res;
}

/** Stream a response body to `path` (fsynced), with optional progress; returns the bytes written. */
async function save(res: Response, url: string, path: string, label: string, progress: boolean | undefined): Promise<number> {
  if (!res.body) throw new CitebenchError(`cannot download ${url}: empty response`);
  // Content-Length is the size on the wire; with a content-encoding fetch hands over decoded bytes.
  const encoded = (res.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const length = Number(res.headers.get('content-length'));
  const expect = !encoded && Number.isFinite(length) && length > 0 ? length : undefined;
  const bar = new Progress({ label, total: expect, unit: 'bytes', enabled: progress });
  let n = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      n += chunk.length;
      bar.set(n);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>), count, createWriteStream(path));
  } catch (e) {
    bar.finish();
    const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
    throw new CitebenchError(`download of ${url} failed after ${n} bytes: ${oneLine(String(err.cause?.code ?? err.code ?? err.message))}`);
  }
  bar.finish();
  if (expect !== undefined && n !== expect) throw new CitebenchError(`download of ${url} is incomplete: ${n} of ${expect} bytes`);
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return n;
}

/** Remove temporary folders of earlier downloads of this model whose process is gone (killed downloads). */
function removeStaleTemps(parent: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    let alive = false;
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (!alive) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

/**
 * Download `repo` into `dir` (which must not exist yet). `hint` is appended to the "no ONNX weights" error
 * (how to export the model). Throws CitebenchError, never leaves `dir` half-written.
 */
export async function downloadModel(repo: string, dir: string, opts: HubOptions & { hint?: string } = {}): Promise<void> {
  const token = opts.token ?? (process.env.HF_TOKEN || undefined);
  const revision = opts.revision ?? 'main';
  const endpoint = hubEndpoint(opts);
  const url = (file: string) => fileUrl(repo, file, { endpoint, revision });
  const parent = dirname(dir);
  const prefix = `.${basename(dir)}.download-`;
  mkdirSync(parent, { recursive: true });
  removeStaleTemps(parent, prefix);
  const tmp = join(parent, `${prefix}${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(join(tmp, 'onnx'), { recursive: true });
  const t0 = performance.now();
  const sizes: Record<string, number> = {};
  const fetchTo = async (file: string, res: Response) => {
    sizes[file] = await save(res, url(file), join(tmp, file), `download ${repo} ${file}`, opts.progress);
  };
  try {
    opts.log?.(`downloading ${repo} (revision ${revision}) from ${endpoint} into ${dir}`);
    const config = await open(url('config.json'), token);
    if (!config) throw new CitebenchError(`cannot download ${url('config.json')}: HTTP 404 (no such repository, revision or file)`);
    await fetchTo('config.json', config);
    const tok = await open(url('tokenizer.json'), token);
    if (tok) await fetchTo('tokenizer.json', tok);
    const tokConfig = await open(url('tokenizer_config.json'), token);
    if (tokConfig) await fetchTo('tokenizer_config.json', tokConfig);
    const names = onnxNames(opts.variant ?? 'fp32');
    let onnx: string | undefined;
    for (const name of names) {
      const file = `onnx/${name}`;
      const res = await open(url(file), token);
      if (!res) continue;
      onnx = file;
      if (tok) await fetchTo(file, res);
      else await res.body?.cancel().catch(() => {}); // do not fetch weights that cannot be used
      break;
    }
    if (!onnx)
      throw new NoOnnxWeightsError(
        `${repo} has no ONNX weights on the hub (404 for ${names.map((n) => `onnx/${n}`).join(' and ')} at ${endpoint}, revision ${revision})` +
          `${tok ? '' : ' and no tokenizer.json'}: export it to ONNX first.` +
          (opts.hint ? `\n${opts.hint}` : ''),
      );
    if (!tok)
      throw new CitebenchError(
        `${repo} has no tokenizer.json on the hub (404 for ${url('tokenizer.json')}): citebench needs the fast-tokenizer file; ` +
          `an optimum-cli export writes it.` + (opts.hint ? `\n${opts.hint}` : ''),
      );
    writeFileSync(join(tmp, DOWNLOAD_RECORD), JSON.stringify({ repo, revision, endpoint, files: sizes }, null, 2) + '\n');
    try {
      renameSync(tmp, dir);
    } catch (e) {
      // Another process finished the same download first: keep its folder.
      const code = (e as NodeJS.ErrnoException).code;
      if ((code === 'ENOTEMPTY' || code === 'EEXIST') && existsSync(dir) && statSync(dir).isDirectory()) rmSync(tmp, { recursive: true, force: true });
      else throw new CitebenchError(`cannot move the download into ${dir}: ${(e as Error).message}`);
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  const bytes = Object.values(sizes).reduce((a, b) => a + b, 0);
  const secs = (performance.now() - t0) / 1000;
  opts.log?.(`downloaded ${Object.keys(sizes).length} files of ${repo} (${(bytes / 1e6).toFixed(1)} MB in ${secs.toFixed(1)} s) into ${dir}`);
}
