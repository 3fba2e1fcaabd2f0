/**
 * Development check (not run by tests): citebench's tokenizer ids against Python transformers' AutoTokenizer on
 * every title, abstract and `title + sep_token + abstract` of the shared samples, for the tokenizer folders that
 * scripts/dev/make-tokenizer-fixtures.py makes (run it with --all FILE first) or make-decoder-tokenizer-fixtures.py
 * (--fuzz FILE: random strings too), and the tokenization throughput.
 *   node --import tsx scripts/dev/check-tokenizer-parity.ts FILE.jsonl [--diff 10]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { encodeTruncated, loadArticleTokenizer, type ArticleTokenizer } from '../../src/retrieval/dense/tokenizer.ts';

const file = process.argv[2];
if (!file) throw new Error('usage: check-tokenizer-parity.ts FILE.jsonl [--diff N]');
const showDiff = process.argv.includes('--diff') ? Number(process.argv[process.argv.indexOf('--diff') + 1]) : 5;
const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { dir: string; text: string; maxLength: number; ids: number[] });
const byDir = new Map<string, typeof rows>();
for (const r of rows) byDir.set(r.dir, [...(byDir.get(r.dir) ?? []), r]);
let bad = 0;
for (const [dir, rs] of byDir) {
  const tok: ArticleTokenizer = loadArticleTokenizer(dir);
  let same = 0;
  const diffs: string[] = [];
  const t0 = performance.now();
  let chars = 0;
  for (const r of rs) {
    const ids = Array.from(encodeTruncated(tok, r.text, r.maxLength));
    chars += r.text.length;
    if (ids.length === r.ids.length && ids.every((x, i) => x === r.ids[i])) same++;
    else if (diffs.length < showDiff) diffs.push(`  ${JSON.stringify(r.text.slice(0, 120))}\n    python ${JSON.stringify(r.ids.slice(0, 40))}\n    js     ${JSON.stringify(ids.slice(0, 40))}`);
  }
  const secs = (performance.now() - t0) / 1000;
  bad += rs.length - same;
  console.log(`${basename(dir)}: ${same} of ${rs.length} texts give Python's ids (${(rs.length / secs).toFixed(0)} texts/s, ${(chars / secs / 1e6).toFixed(2)} M chars/s)`);
  for (const d of diffs) console.log(d);
}
process.exit(bad ? 1 : 0);
