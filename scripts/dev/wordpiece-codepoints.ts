/**
 * transformers.js's BERT normalizer + pre-tokenizer against Python's on every code point (development only, not
 * run by tests): reads the file scripts/dev/wordpiece-codepoints.py writes and prints, for lower-cased and cased
 * normalizers, how many code points give other pre-tokens, plainly and after wordpiece.ts's bertParityRewrite
 * (what citebench runs), with the differing ranges (hex).
 *   node --import tsx scripts/dev/wordpiece-codepoints.ts SCRATCH/codepoints.tsv
 */
import { readFileSync } from 'node:fs';
import { BertTokenizer } from '@huggingface/transformers';
import { bertParityRewrite, bertTokenizerJson } from '../../src/retrieval/dense/wordpiece.ts';

interface Inner { normalizer: (t: string) => string; pre_tokenizer: (t: string) => string[] }

const VOCAB = '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n';
const CONFIGS = { lower: { do_lower_case: true }, cased: { do_lower_case: false, strip_accents: false } };
const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t');

function ranges(a: number[]): string {
  const r: string[] = [];
  for (let i = 0; i < a.length; ) {
    let j = i;
    while (j + 1 < a.length && a[j + 1] === a[j] + 1) j++;
    r.push(i === j ? a[i].toString(16) : `${a[i].toString(16)}-${a[j].toString(16)}`);
    i = j + 1;
  }
  return r.join(' ');
}

const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
for (const [k, [name, config]] of Object.entries(CONFIGS).entries()) {
  const json = bertTokenizerJson(VOCAB, config, 'vocab');
  const inner = (new BertTokenizer(json, config) as unknown as { _tokenizer: Inner })._tokenizer;
  const rewrite = bertParityRewrite(json.normalizer)!;
  const plain: number[] = [];
  const fixed: number[] = [];
  for (const line of lines) {
    const [cpText, ...py] = line.split('\t');
    const c = String.fromCodePoint(Number(cpText));
    const texts = ['a' + c + 'b', 'a' + c];
    const js = (f: (t: string) => string) => texts.map((t) => esc(inner.pre_tokenizer(inner.normalizer(f(t))).join('\x1f')));
    const want = py.slice(2 * k, 2 * k + 2);
    if (js((t) => t).some((x, i) => x !== want[i])) plain.push(Number(cpText));
    if (js(rewrite).some((x, i) => x !== want[i])) fixed.push(Number(cpText));
  }
  console.log(`${name}: ${lines.length} code points, ${plain.length} differ plainly, ${fixed.length} after bertParityRewrite`);
  console.log(`  differing after the rewrite: ${ranges(fixed)}`);
}
