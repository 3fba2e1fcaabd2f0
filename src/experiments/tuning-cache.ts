/**
 * Tuning results (BM25's k1/b, a Profiler's β) cached in the work folder under a key of everything they depend
 * on: every cluster task of a run, and every resumed run, reuses the first one's choice instead of searching the
 * grid again. A damaged file is recomputed; a new one is written atomically.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic.ts';
import { hashString } from '../util/rng.ts';

export async function cachedTuning<T>(work: string, model: string, key: unknown, compute: () => Promise<T>, reused: (t: T, path: string) => void): Promise<T> {
  const hash = hashString(JSON.stringify(key)).toString(16).padStart(8, '0');
  const path = join(work, 'tuning', `${model}-${hash}.json`);
  if (existsSync(path)) {
    try {
      const t = JSON.parse(readFileSync(path, 'utf8')) as T;
      reused(t, path);
      return t;
    } catch {
      /* a damaged cache is recomputed */
    }
  }
  const t = await compute();
  writeFileAtomic(path, JSON.stringify(t) + '\n');
  return t;
}
