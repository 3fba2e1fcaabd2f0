import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under `dir` (relative path → bytes), timings.json aside: what "identical results" compares. */
export function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  (function walk(d: string) {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f !== 'timings.json') out.set(relative(dir, p), readFileSync(p));
    }
  })(dir);
  return out;
}
