/**
 * Opt-in download of a model folder from the Hugging Face hub (`--allow-remote`): the files citebench can use,
 * in the layout the repo actually has — config.json; tokenizer.json, else vocab.txt; tokenizer_config.json and
 * special_tokens_map.json when present; and one set of weights: an ONNX export when the repo has one, else the
 * PyTorch checkpoint (model.safetensors, its sharded index, pytorch_model.bin or its sharded index), which
 * the caller converts. Files are fetched from `${endpoint}/${repo}/resolve/${revision}/${file}` with Node's
 * fetch and streamed into a hidden sibling temporary folder that is renamed into place when complete: a folder
 * at the final path is always whole. A killed or broken download leaves its temporary folder; the next
 * download of the same repo and revision takes it over and continues each partial file with a Range request.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { open as openFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../util/atomic.ts';
import { CitebenchError } from '../../util/errors.ts';
import { fmtCount, Progress } from '../../util/progress.ts';
import { onnxNames, type OnnxVariant } from './onnx-variant.ts';
import { CHECKPOINT_FILES } from './checkpoint/index.ts';

export const DEFAULT_ENDPOINT = 'https://huggingface.co';
/** Written next to the downloaded files: where they came from and each file's size and SHA-256. */
export const DOWNLOAD_RECORD = 'citebench-download.json';
/** PyTorch checkpoints, in the order they are fetched when the repo has no ONNX export (the order they are read in). */
export const PYTORCH_WEIGHT_FILES = CHECKPOINT_FILES;
/** Progress of an unfinished download inside its temporary folder (finished files, validators of partial ones). */
const PARTIAL_STATE = '.citebench-partial.json';

export interface HubOptions {
  /** Default: $HF_ENDPOINT, else https://huggingface.co. */
  endpoint?: string;
  /** Sent as `Authorization: Bearer …`; default: $HF_TOKEN. */
  token?: string;
  /** Branch, tag or commit (default `main`). */
  revision?: string;
  /** Which ONNX export to fetch first when the repo has ONNX files (default fp32; onnx-variant.ts). */
  variant?: OnnxVariant;
  /** Bytes, rate and ETA on stderr (default: stderr is a TTY and CI is unset). */
  progress?: boolean;
  /** One line when the download starts and one when it ends. */
  log?: (line: string) => void;
}

export interface DownloadedFile {
  bytes: number;
  /** Hex SHA-256 of the whole file. */
  sha256: string;
}

/** The content of `citebench-download.json`. */
export interface DownloadRecord {
  repo: string;
  revision: string;
  endpoint: string;
  /** The commit the hub resolved the revision to (its X-Repo-Commit header), when it said. */
  commit?: string;
  /** Relative path (`/`-separated) → size and SHA-256. */
  files: Record<string, DownloadedFile>;
}

/** Raised when the repo has no weights citebench can use (no ONNX export, no PyTorch checkpoint). */
export class NoWeightsError extends CitebenchError {
  override name = 'NoWeightsError';
}
/** Former name of NoWeightsError (the repo has no ONNX and no PyTorch weights). */
export const NoOnnxWeightsError = NoWeightsError;

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

/**
 * The download record of a model folder, or undefined when the folder has none (not downloaded by citebench).
 * Throws a CitebenchError naming the file and field when the record is malformed.
 */
export function readDownloadRecord(dir: string): DownloadRecord | undefined {
  const path = join(dir, DOWNLOAD_RECORD);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CitebenchError(`${path}: cannot read (${(e as Error).message})`);
  }
  const bad = (field: string, what: string) =>
    new CitebenchError(`${path} [${field}]: ${what}; remove the model folder and download it again`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw bad('(file)', `not JSON (${(e as Error).message})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad('(file)', 'not a JSON object');
  const r = raw as Record<string, unknown>;
  for (const f of ['repo', 'revision', 'endpoint'] as const) if (typeof r[f] !== 'string') throw bad(f, 'missing or not a string');
  if (r.commit !== undefined && typeof r.commit !== 'string') throw bad('commit', 'not a string');
  if (!r.files || typeof r.files !== 'object' || Array.isArray(r.files)) throw bad('files', 'missing or not an object');
  const files: Record<string, DownloadedFile> = {};
  for (const [name, v] of Object.entries(r.files as Record<string, unknown>)) {
    const f = v as Partial<DownloadedFile> | null;
    if (!f || typeof f !== 'object' || !Number.isSafeInteger(f.bytes) || (f.bytes as number) < 0 || typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256))
      throw bad(`files.${name}`, 'needs {bytes: integer, sha256: 64 hex digits} (a record written before sizes and hashes were kept?)');
    files[name] = { bytes: f.bytes as number, sha256: f.sha256 };
  }
  return { repo: r.repo as string, revision: r.revision as string, endpoint: r.endpoint as string, ...(r.commit !== undefined ? { commit: r.commit as string } : {}), files };
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Errors after which the temporary folder is useless (the repo lacks what is needed): it is removed. */
const FINAL = new WeakSet<Error>();
function final<E extends Error>(e: E): E {
  FINAL.add(e);
  return e;
}

const NETWORK_DOWN = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN']);

interface PartialState {
  commit?: string;
  /** Finished files. */
  done: Record<string, DownloadedFile>;
  /** ETag of the response each unfinished file came from: a resumed file must continue the same bytes. */
  etags: Record<string, string>;
}

/** One download in progress: its temporary folder, saved state and HTTP settings. */
class Session {
  state: PartialState = { done: {}, etags: {} };
  constructor(
    readonly repo: string,
    readonly revision: string,
    readonly endpoint: string,
    readonly token: string | undefined,
    readonly tmp: string,
    readonly progress: boolean | undefined,
  ) {
    try {
      const s = JSON.parse(readFileSync(join(tmp, PARTIAL_STATE), 'utf8')) as Partial<PartialState>;
      if (s && typeof s.done === 'object' && typeof s.etags === 'object') this.state = { commit: s.commit, done: s.done ?? {}, etags: s.etags ?? {} };
    } catch {
      // A fresh folder, or a state lost in a kill: partial files are still checked against the server.
    }
  }

  url(file: string): string {
    return fileUrl(this.repo, file, { endpoint: this.endpoint, revision: this.revision });
  }

  save(): void {
    writeFileAtomic(join(this.tmp, PARTIAL_STATE), JSON.stringify(this.state) + '\n');
  }

  /** GET `file` (from byte `from` when > 0). Undefined when the hub has no such file in this repo and revision. */
  private async request(file: string, from: number): Promise<Response | undefined> {
    const url = this.url(file);
    // identity: byte offsets of a Range must be offsets in the file, not in a compressed stream.
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (from > 0) {
      headers.range = `bytes=${from}-`;
      const etag = this.state.etags[file];
      if (etag && !etag.startsWith('W/')) headers['if-range'] = etag;
    }
    let res: Response;
    try {
      res = await fetch(url, { headers, redirect: 'follow' });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const code = cause?.code ?? '';
      if (NETWORK_DOWN.has(code))
        throw new CitebenchError(
          `cannot reach ${this.endpoint} (${code}): no network? download on a machine with internet and copy the folder, or set HF_ENDPOINT`,
        );
      throw new CitebenchError(
        `cannot download ${url}: ${oneLine(String(code || cause?.message || (e as Error).message))}: try again (what was fetched is kept and resumed)`,
      );
    }
    if (res.ok || res.status === 404 || res.status === 416) this.checkCommit(res.headers.get('x-repo-commit') ?? undefined);
    if (res.ok || res.status === 416) return res;
    await res.body?.cancel().catch(() => {});
    const code = res.headers.get('x-error-code') ?? '';
    const status = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${code ? ` (${code})` : ''}`;
    const at = `${this.repo} at ${this.endpoint}`;
    if (code === 'RepoNotFound' || res.status === 401 || res.status === 403) {
      const what =
        code === 'GatedRepo'
          ? `${this.repo} is gated: accept its terms on the hub page, then set HF_TOKEN to a token of that account`
          : this.token
            ? `${at}: not found, or HF_TOKEN may not read it (private or gated)`
            : `${at}: not found, or private or gated (set HF_TOKEN to a token that may read it)`;
      // Not final: with the right token the next run resumes what was fetched.
      throw new CitebenchError(`cannot download ${url}: ${status}: ${what}`);
    }
    if (code === 'RevisionNotFound') throw final(new CitebenchError(`cannot download ${url}: ${status}: ${this.repo} has no revision '${this.revision}'`));
    if (res.status === 404) return undefined;
    throw new CitebenchError(`cannot download ${url}: ${status}${res.status >= 500 ? ': the hub failed; try again later (what was fetched is kept and resumed)' : ''}`);
  }

  /**
   * Make `file` complete in the temporary folder, resuming a partial copy. Returns false when the hub has no
   * such file (any partial copy is dropped). Finished files are not requested again.
   */
  async fetchFile(file: string): Promise<boolean> {
    const path = join(this.tmp, file);
    const done = this.state.done[file];
    if (done && existsSync(path) && statSync(path).size === done.bytes) return true;
    delete this.state.done[file];
    const url = this.url(file);
    let have = existsSync(path) ? statSync(path).size : 0;
    let res = await this.request(file, have);
    if (!res) {
      rmSync(path, { force: true });
      return false;
    }
    if (res.status === 416) {
      // Range past the end: the partial copy may already be the whole file.
      const total = /^bytes \*\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1];
      await res.body?.cancel().catch(() => {});
      if (have > 0 && total !== undefined && Number(total) === have) {
        await this.finish(file, await hashFile(path), have);
        return true;
      }
      rmSync(path, { force: true });
      have = 0;
      res = await this.request(file, 0);
      if (!res) return false;
      if (res.status === 416) throw new CitebenchError(`cannot download ${url}: HTTP 416 for a request without Range`);
    }
    let from = 0;
    if (res.status === 206) {
      const start = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '')?.[1];
      const etag = res.headers.get('etag');
      const known = this.state.etags[file];
      if (start === undefined || Number(start) !== have || (etag && known && etag !== known)) {
        // Another range, or another version of the file than the partial copy: start over.
        await res.body?.cancel().catch(() => {});
        rmSync(path, { force: true });
        res = await this.request(file, 0);
        if (!res) return false;
      } else from = have;
    }
    if (from === 0) {
      const etag = res.headers.get('etag');
      if (etag) this.state.etags[file] = etag;
      else delete this.state.etags[file];
      this.save();
    }
    mkdirSync(dirname(path), { recursive: true });
    const hash = createHash('sha256');
    if (from > 0) await hashInto(path, hash);
    const got = await this.stream(res, url, path, file, from, hash);
    await this.finish(file, hash.digest('hex'), from + got);
    return true;
  }

  private async finish(file: string, sha256: string, bytes: number): Promise<void> {
    this.state.done[file] = { bytes, sha256 };
    delete this.state.etags[file];
    this.save();
  }

  /**
   * Append (from > 0) or write the body to `path`, hashing it; returns the bytes received. Each chunk is on disk
   * before the next is read, so a broken transfer leaves exactly the bytes it reports.
   */
  private async stream(res: Response, url: string, path: string, file: string, from: number, hash: Hash): Promise<number> {
    if (!res.body) throw new CitebenchError(`cannot download ${url}: empty response`);
    const length = Number(res.headers.get('content-length'));
    const expect = res.headers.get('content-length') !== null && Number.isSafeInteger(length) ? length : undefined;
    const label = `download ${this.repo} ${file}${from > 0 ? ` (resumed at ${fmtCount(from)} bytes)` : ''}`;
    const bar = new Progress({ label, total: expect || undefined, unit: 'bytes', enabled: this.progress });
    const resume = 'run the same command again to resume';
    const out = await openFile(path, from > 0 ? 'a' : 'w');
    let n = 0;
    try {
      const reader = res.body.getReader();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
          throw new CitebenchError(`download of ${url} broke after ${from + n} bytes (${oneLine(String(err.cause?.code ?? err.code ?? err.message))}): ${resume}`);
        }
        if (chunk.done) break;
        for (let off = 0; off < chunk.value.length; ) off += (await out.write(chunk.value, off, chunk.value.length - off)).bytesWritten;
        n += chunk.value.length;
        hash.update(chunk.value);
        bar.set(n);
      }
      await out.sync();
    } finally {
      bar.finish();
      await out.close();
    }
    if (expect !== undefined && n !== expect) throw new CitebenchError(`download of ${url} is incomplete (${from + n} of ${from + expect} bytes): ${resume}`);
    return n;
  }

  /**
   * Note the commit the hub resolved the revision to (first response that says), and refuse to mix files of
   * two commits when the branch moved while the download was under way or between its attempts.
   */
  private checkCommit(commit: string | undefined): void {
    if (!commit) return;
    if (!this.state.commit) {
      this.state.commit = commit;
      this.save();
    } else if (commit !== this.state.commit)
      throw final(
        new CitebenchError(
          `revision '${this.revision}' of ${this.repo} moved from commit ${this.state.commit} to ${commit} during the download: run the same command again to download it afresh`,
        ),
      );
  }
}

async function hashInto(path: string, hash: Hash): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

async function hashFile(path: string): Promise<string> {
  const h = createHash('sha256');
  await hashInto(path, h);
  return h.digest('hex');
}

/** Hostname as it appears in temporary folder names (pids are per host: a folder on NFS may be another host's). */
const HOST = hostname().replace(/[^A-Za-z0-9.]/g, '_') || 'host';

/** Temporary folders this process is downloading into right now (its others are left by failed calls). */
const ACTIVE = new Set<string>();

/** Whether the process that owns a temporary folder may still be running. */
function ownerAlive(host: string, pid: number, path: string): boolean {
  if (host !== HOST) return true; // cannot tell: leave it alone
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return ACTIVE.has(path);
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The temporary folder for this download: the newest one left by a dead process for the same repo and
 * revision (renamed to this process's name, so two downloads never share one), else a new one. Other dead
 * processes' temporary folders of this model are removed.
 */
function claimTemp(parent: string, name: string, repo: string, revision: string): string {
  const prefix = `.${name}.download-`;
  const key = createHash('sha256').update(`${repo}\u0000${revision}`).digest('hex').slice(0, 8);
  const mine = join(parent, `${prefix}${key}-${HOST}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const reusable: { path: string; mtime: number }[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    // parent is created below
  }
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const rest = n.slice(prefix.length);
    const m = /^([0-9a-f]{8})-(.+)-(\d+)-[0-9a-f]{8}$/.exec(rest);
    const path = join(parent, n);
    if (m) {
      if (ownerAlive(m[2], Number(m[3]), path)) continue;
      if (m[1] === key) {
        try {
          reusable.push({ path, mtime: statSync(path).mtimeMs });
        } catch {
          // claimed by another process meanwhile
        }
        continue;
      }
    } else if (ownerAlive(HOST, Number(rest.split('-')[0]), path)) continue; // older naming: <pid>-<random>
    rmSync(path, { recursive: true, force: true });
  }
  reusable.sort((a, b) => b.mtime - a.mtime);
  let claimed = false;
  for (const r of reusable) {
    if (!claimed) {
      try {
        renameSync(r.path, mine);
        claimed = true;
        continue;
      } catch {
        // another process took it first
      }
    }
    rmSync(r.path, { recursive: true, force: true });
  }
  if (!claimed) mkdirSync(mine, { recursive: true });
  ACTIVE.add(mine);
  return mine;
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

/**
 * Download `repo` into `dir`. `hint` is appended to the "no weights" error. Throws CitebenchError (one line,
 * plus the hint), never leaves `dir` half-written. When `dir` already holds a download of the same repo and
 * revision nothing is requested; another existing `dir` is an error.
 */
export async function downloadModel(repo: string, dir: string, opts: HubOptions & { hint?: string } = {}): Promise<void> {
  const token = opts.token ?? (process.env.HF_TOKEN || undefined);
  const revision = opts.revision ?? 'main';
  const endpoint = hubEndpoint(opts);
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
  const hint = opts.hint ? `\n${opts.hint}` : '';
  const chosen: string[] = [];
  const get = async (file: string) => {
    const ok = await s.fetchFile(file);
    if (ok) chosen.push(file);
    return ok;
  };
  try {
    opts.log?.(`downloading ${repo} (revision ${revision}) from ${endpoint} into ${dir}${resumed ? ' (resuming an earlier download)' : ''}`);
    if (!(await get('config.json')))
      throw final(new CitebenchError(`cannot download ${s.url('config.json')}: HTTP 404: no repository ${repo} with revision '${revision}' at ${endpoint}, or it has no config.json`));
    if (!(await get('tokenizer.json')) && !(await get('vocab.txt')))
      throw final(new CitebenchError(`${repo} has neither tokenizer.json nor vocab.txt on the hub (revision ${revision}): citebench cannot tokenize for it` + hint));
    await get('tokenizer_config.json');
    await get('special_tokens_map.json');
    const onnx = onnxNames(opts.variant ?? 'fp32').map((n) => `onnx/${n}`);
    let weights: string | undefined;
    for (const file of [...onnx, ...PYTORCH_WEIGHT_FILES]) {
      if (!(await get(file))) continue;
      weights = file;
      break;
    }
    if (!weights)
      throw final(
        new NoWeightsError(`${repo} has no weights citebench can use on the hub (404 for ${[...onnx, ...PYTORCH_WEIGHT_FILES].join(', ')} at ${endpoint}, revision ${revision})` + hint),
      );
    if (weights.endsWith('.index.json'))
      for (const shard of shardsOf(join(tmp, weights), weights))
        if (!(await get(shard))) throw final(new CitebenchError(`${weights} [weight_map] lists ${shard}, but the hub has no such file (${s.url(shard)}: 404)`));
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
    if (FINAL.has(e as Error) || !useful) rmSync(tmp, { recursive: true, force: true });
    throw e;
  } finally {
    ACTIVE.delete(tmp);
  }
}
