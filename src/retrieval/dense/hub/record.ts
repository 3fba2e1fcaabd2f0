/**
 * `citebench-download.json`, written next to the files of a finished download: where they came from (repo,
 * revision, the commit the hub resolved it to) and each file's size and SHA-256.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CitebenchError } from '../../../util/errors.ts';

export const DOWNLOAD_RECORD = 'citebench-download.json';

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

/**
 * The download record of a folder, or undefined when the folder has none (not downloaded by citebench).
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
