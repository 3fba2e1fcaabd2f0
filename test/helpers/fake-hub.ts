/**
 * A Hugging Face hub stand-in for tests: a loopback HTTP server (127.0.0.1, port 0) that serves
 * `/<org>/<name>/resolve/<revision>/<file>` from in-memory files or a folder, with what citebench's downloader
 * relies on: Range requests (206 / 416 with Content-Range), ETag and If-Range, X-Repo-Commit, the hub's
 * X-Error-Code on errors (RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo), an optional bearer token,
 * and injected failures (a connection cut after N bytes, 5xx answers). Every request is recorded, so a test
 * can assert what was fetched and that a second run fetches nothing. Nothing leaves the machine.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface FakeRepo {
  /** Relative path (`/`-separated) → content. */
  files?: Record<string, Buffer | string>;
  /** Serve the files of this folder (all of them, or only `only`); `files` entries win. */
  dir?: string;
  only?: string[];
  /** The revision served (default `main`); others answer 404 RevisionNotFound. */
  revision?: string;
  /** Sent as X-Repo-Commit when set. */
  commit?: string;
  /** Requests without `Authorization: Bearer <token>` answer 401 RepoNotFound (like a private repo). */
  token?: string;
  /** Answer 403 GatedRepo to every request. */
  gated?: boolean;
  /**
   * Serve weight files (.bin, .safetensors, .onnx, .msgpack, .h5) like the hub serves LFS files: a 302 with
   * X-Linked-Etag and X-Linked-Size to a content-addressed URL (`/__cdn/<sha256>`) that sends the bytes.
   */
  lfs?: boolean;
}

export interface FakeRequest {
  repo: string;
  revision: string;
  file: string;
  /** The Range header, if any. */
  range?: string;
  auth?: string;
  status: number;
  /** Body bytes written. */
  sent: number;
  /** Served from the content-addressed URL an LFS redirect points to. */
  cdn?: boolean;
}

interface Served {
  data: Buffer;
  etag: string;
}

function filesOf(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const n of readdirSync(join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${n}` : n;
    if (statSync(join(dir, r)).isDirectory()) out.push(...filesOf(dir, r));
    else out.push(r);
  }
  return out;
}

export class FakeHub {
  readonly requests: FakeRequest[] = [];
  private readonly repos = new Map<string, { spec: FakeRepo; files: Map<string, Served> }>();
  private readonly cuts = new Map<string, number>();
  private readonly failures = new Map<string, { status: number; times: number }>();
  private server!: Server;
  endpoint = '';

  constructor(repos: Record<string, FakeRepo>) {
    for (const [name, spec] of Object.entries(repos)) this.addRepo(name, spec);
  }

  addRepo(name: string, spec: FakeRepo): void {
    const files = new Map<string, Served>();
    this.repos.set(name, { spec, files });
    if (spec.dir) for (const f of spec.only ?? filesOf(spec.dir)) this.setFile(name, f, readFileSync(join(spec.dir, f)));
    for (const [f, data] of Object.entries(spec.files ?? {})) this.setFile(name, f, data);
  }

  /** Add or replace a file (a new version gets a new ETag). */
  setFile(repo: string, file: string, data: Buffer | string): void {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(data);
    const r = this.repos.get(repo);
    if (!r) throw new Error(`fake hub: no repo ${repo}`);
    r.files.set(file, { data: buf, etag: `"${createHash('sha256').update(buf).digest('hex')}"` });
  }

  setCommit(repo: string, commit: string): void {
    this.repos.get(repo)!.spec.commit = commit;
  }

  /** The next GET of this file sends its headers and `bytes` body bytes, then drops the connection. */
  cutAfter(repo: string, file: string, bytes: number): void {
    this.cuts.set(`${repo}\u0000${file}`, bytes);
  }

  /** The next `times` GETs of this file answer `status` (default 500). */
  fail(repo: string, file: string, status = 500, times = 1): void {
    this.failures.set(`${repo}\u0000${file}`, { status, times });
  }

  /** Requests for one file of a repo (any status). */
  count(repo: string, file?: string): number {
    return this.requests.filter((r) => r.repo === repo && (file === undefined || r.file === file)).length;
  }

  /** Files of a repo as the test built them (for byte comparisons). */
  file(repo: string, file: string): Buffer {
    return this.repos.get(repo)!.files.get(file)!.data;
  }

  sha256(repo: string, file: string): string {
    return createHash('sha256').update(this.file(repo, file)).digest('hex');
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.endpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((ok) => this.server.close(ok));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const cdn = /^\/__cdn\/([0-9a-f]{64})$/.exec(req.url ?? '');
    if (cdn) return this.handleCdn(req, res, cdn[1]);
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(req.url ?? '');
    const rec: FakeRequest = {
      repo: m?.[1] ?? '',
      revision: m ? decodeURIComponent(m[2]) : '',
      file: m?.[3] ?? req.url ?? '',
      range: req.headers.range,
      auth: req.headers.authorization,
      status: 0,
      sent: 0,
    };
    this.requests.push(rec);
    const error = (status: number, code: string, message: string) => {
      rec.status = status;
      res.writeHead(status, { 'x-error-code': code, 'x-error-message': message, 'content-type': 'text/plain' }).end(message);
    };
    const repo = m ? this.repos.get(m[1]) : undefined;
    // The real hub answers 401 for a repo it does not show you, whether missing or private.
    if (!m || !repo || (repo.spec.token && req.headers.authorization !== `Bearer ${repo.spec.token}`))
      return error(401, 'RepoNotFound', 'Repository not found');
    if (repo.spec.gated) return error(403, 'GatedRepo', 'Access to this model is restricted');
    if (rec.revision !== (repo.spec.revision ?? 'main')) return error(404, 'RevisionNotFound', 'Invalid rev id');
    const key = `${m[1]}\u0000${rec.file}`;
    const failure = this.failures.get(key);
    if (failure && failure.times > 0) {
      failure.times--;
      rec.status = failure.status;
      res.writeHead(failure.status, { 'content-type': 'text/plain' }).end('internal error');
      return;
    }
    const served = repo.files.get(rec.file);
    if (!served) return error(404, 'EntryNotFound', 'Entry not found');
    if (repo.spec.lfs && /\.(bin|safetensors|onnx|msgpack|h5)$/.test(rec.file)) {
      const sha = served.etag.slice(1, -1);
      this.cdn.set(sha, { repo: m[1], revision: rec.revision, file: rec.file });
      rec.status = 302;
      const headers: Record<string, string> = { location: `/__cdn/${sha}`, 'x-linked-etag': served.etag, 'x-linked-size': String(served.data.length) };
      if (repo.spec.commit) headers['x-repo-commit'] = repo.spec.commit;
      res.writeHead(302, headers).end();
      return;
    }
    this.send(req, res, rec, key, served, repo.spec.commit);
  }

  /** Content-addressed downloads that LFS redirects point to (another ETag, no X-Repo-Commit, like a CDN). */
  private readonly cdn = new Map<string, { repo: string; revision: string; file: string }>();

  private handleCdn(req: IncomingMessage, res: ServerResponse, sha: string): void {
    const origin = this.cdn.get(sha);
    const rec: FakeRequest = { repo: origin?.repo ?? '', revision: origin?.revision ?? '', file: origin?.file ?? sha, range: req.headers.range, auth: req.headers.authorization, status: 0, sent: 0, cdn: true };
    this.requests.push(rec);
    const served = origin && this.repos.get(origin.repo)?.files.get(origin.file);
    if (!origin || !served || served.etag !== `"${sha}"`) {
      rec.status = 404;
      res.writeHead(404).end();
      return;
    }
    this.send(req, res, rec, `${origin.repo}\u0000${origin.file}`, { data: served.data, etag: `"cdn-${sha.slice(0, 16)}"` }, undefined);
  }

  /** The file's bytes, whole (200) or from a Range (206 / 416), or cut short when a cut is pending. */
  private send(req: IncomingMessage, res: ServerResponse, rec: FakeRequest, key: string, served: Served, commit: string | undefined): void {
    const { data, etag } = served;
    const headers: Record<string, string> = { etag, 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' };
    if (commit) headers['x-repo-commit'] = commit;
    let start = 0;
    let status = 200;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    if (range && (ifRange === undefined || ifRange === etag)) {
      start = Number(range[1]);
      if (start >= data.length) {
        rec.status = 416;
        res.writeHead(416, { ...headers, 'content-range': `bytes */${data.length}` }).end();
        return;
      }
      status = 206;
      headers['content-range'] = `bytes ${start}-${data.length - 1}/${data.length}`;
    }
    const body = data.subarray(start);
    headers['content-length'] = String(body.length);
    rec.status = status;
    res.writeHead(status, headers);
    const cut = this.cuts.get(key);
    if (cut !== undefined) {
      this.cuts.delete(key);
      const part = body.subarray(0, Math.min(cut, body.length));
      rec.sent = part.length;
      // FIN after the partial body: the client sees a premature end. The pause lets it read `part` first (a
      // fetch body stream that errors drops the chunks it had queued but not yet handed out).
      res.write(part, () => setTimeout(() => res.socket?.end(), 150));
      return;
    }
    rec.sent = body.length;
    res.end(body);
  }
}

/** Start a fake hub serving `repos`; `close()` it in an `after` hook. */
export function startFakeHub(repos: Record<string, FakeRepo>): Promise<FakeHub> {
  return new FakeHub(repos).start();
}

/** A local port nothing listens on (bound, then released): a hub that refuses connections. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as AddressInfo).port;
  await new Promise((ok) => s.close(ok));
  return port;
}
