/**
 * The hidden temporary folder a download writes into before it is renamed into place: `.<name>.download-…`
 * beside the final folder, named by the repo and revision, the host and the process. A folder left by a dead
 * process for the same repo and revision is taken over (its partial files are resumed); others are removed.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../../util/identity.ts';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

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
export function claimTemp(parent: string, name: string, repo: string, revision: string): string {
  const prefix = `.${name}.download-`;
  const key = sha256().update(`${repo}\u0000${revision}`).hex(8);
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

/** The download into `path` is over (finished or failed): a later call may take its folder over. */
export function releaseTemp(path: string): void {
  ACTIVE.delete(path);
}
