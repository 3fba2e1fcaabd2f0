/**
 * One download in progress from the Hugging Face hub: files are fetched from
 * `${endpoint}/${repo}/resolve/${revision}/${file}` with Node's fetch and streamed into a temporary folder,
 * hashed as they arrive. A partial file is continued with a Range request (If-Range on its ETag), and the
 * commit the hub resolved the revision to must stay the same across every file and attempt.
 */
import { sha256, type Sha256 } from '../../../util/identity.ts';
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { open as openFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../../util/atomic.ts';
import { CitebenchError } from '../../../util/errors.ts';
import { fmtCount, Progress } from '../../../util/progress.ts';
import type { DownloadedFile } from './record.ts';

/** Progress of an unfinished download inside its temporary folder (finished files, validators of partial ones). */
export const PARTIAL_STATE = '.citebench-partial.json';

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Errors after which the temporary folder is useless (the repo lacks what is needed): it is removed. */
const FINAL = new WeakSet<Error>();
/** Whether `e` was marked final: the temporary folder is of no further use. */
export function isFinal(e: unknown): boolean {
  return e instanceof Error && FINAL.has(e);
}
export function final<E extends Error>(e: E): E {
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
export class Session {
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
    return `${this.endpoint}/${this.repo}/resolve/${encodeURIComponent(this.revision)}/${file}`;
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
    const hash = sha256();
    if (from > 0) await hashInto(path, hash);
    const got = await this.stream(res, url, path, file, from, hash);
    await this.finish(file, hash.hex(), from + got);
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
  private async stream(res: Response, url: string, path: string, file: string, from: number, hash: Sha256): Promise<number> {
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

async function hashInto(path: string, hash: Sha256): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

async function hashFile(path: string): Promise<string> {
  const h = sha256();
  await hashInto(path, h);
  return h.hex();
}
