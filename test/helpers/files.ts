import assert from 'node:assert/strict';
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

/** Two trees (tree()) hold the same files with the same bytes; `what` names what a missing or extra file means. */
export function assertSameTree(got: Map<string, Buffer>, want: Map<string, Buffer>, what: string): void {
  assert.deepEqual([...got.keys()], [...want.keys()], what);
  for (const [f, bytes] of want) assert.ok(bytes.equals(got.get(f)!), `${f} differs`);
}
