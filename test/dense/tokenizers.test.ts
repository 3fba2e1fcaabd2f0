// tokenizer.json folders of today's model families (BERT WordPiece, RoBERTa byte-level BPE, XLM-R SentencePiece
// Unigram with a precompiled charsmap, ModernBERT BPE) against Python transformers 5.18's AutoTokenizer — what
// sentence-transformers and SciRepEval tokenise with. Folders and golden ids: scripts/dev/make-tokenizer-fixtures.py
// (vocabularies trained on S2ORC and SciRepEval samples, ODC-BY; see golden.json's note).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTruncated, loadArticleTokenizer } from '../../src/retrieval/dense/tokenizer.ts';
import { CitebenchError } from '../../src/util/errors.ts';

const ROOT = new URL('./fixtures/tokenizers', import.meta.url).pathname;

interface Golden {
  folders: Record<string, { class: string; sepToken: string; cases: { text: string; maxLength: number; ids: number[] }[]; rawDiffers: string[] }>;
}
const golden = JSON.parse(readFileSync(join(ROOT, 'golden.json'), 'utf8')) as Golden;
const folders = readdirSync(ROOT).filter((n) => statSync(join(ROOT, n)).isDirectory()).sort();

test('every tokenizer fixture folder has golden ids', () => {
  assert.deepEqual(folders, Object.keys(golden.folders).sort());
  assert.ok(folders.length >= 5);
});

for (const name of folders) {
  test(`tokenizer ${name}: ids equal AutoTokenizer's (truncation=True, max_length 512 and 40), sep_token as Python's`, () => {
    const g = golden.folders[name]!;
    const tok = loadArticleTokenizer(join(ROOT, name));
    assert.equal(tok.sepToken, g.sepToken);
    let bad = 0;
    const first: string[] = [];
    for (const c of g.cases) {
      const ids = Array.from(encodeTruncated(tok, c.text, c.maxLength));
      const same = ids.length === c.ids.length && ids.every((x, i) => x === c.ids[i]);
      if (!same) {
        bad++;
        if (first.length < 3) first.push(`${JSON.stringify(c.text.slice(0, 60))} (max ${c.maxLength}): python ${c.ids.slice(0, 20)} citebench ${ids.slice(0, 20)}`);
      }
    }
    assert.equal(bad, 0, `${bad} of ${g.cases.length} texts differ:\n${first.join('\n')}`);
    // Truncation must have been exercised: some texts are longer than 40 tokens.
    assert.ok(g.cases.some((c) => c.maxLength === 40 && c.ids.length === 40));
  });
}

test('bert-cased-json: tokenizer.json says lowercase false, but BertTokenizer rebuilds from tokenizer_config.json (do_lower_case defaults true)', () => {
  const g = golden.folders['bert-cased-json']!;
  assert.ok(g.rawDiffers.length > 0, 'the fixture must have texts where tokenizer.json as-is gives other ids');
  const tok = loadArticleTokenizer(join(ROOT, 'bert-cased-json'));
  const lower = loadArticleTokenizer(join(ROOT, 'bert-wordpiece'));
  assert.deepEqual(tok.body('MiXeD CaSe WORDS'), lower.body('mixed case words'));
});

test('a tokenizer.json whose precompiled charsmap is not one is a one-line CitebenchError naming the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-tok-'));
  try {
    cpSync(join(ROOT, 'xlmr-unigram'), dir, { recursive: true });
    const p = join(dir, 'tokenizer.json');
    const j = JSON.parse(readFileSync(p, 'utf8'));
    const pre = (j.normalizer.normalizers as { type: string; precompiled_charsmap?: string }[]).find((n) => n.type === 'Precompiled')!;
    pre.precompiled_charsmap = Buffer.from([0xff, 0xff, 0, 0, 1]).toString('base64');
    writeFileSync(p, JSON.stringify(j));
    assert.throws(
      () => loadArticleTokenizer(dir),
      (e: unknown) => e instanceof CitebenchError && e.message.includes('tokenizer.json') && e.message.includes('precompiled_charsmap') && !e.message.includes('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const UNSUPPORTED: [string, (j: Record<string, any>) => void, string][] = [
  ['model type', (j) => (j.model.type = 'NoSuchModel'), 'NoSuchModel'],
  ['normalizer type', (j) => (j.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKC' }] }), 'normalizer type "NFKC"'],
  ['pre-tokenizer type', (j) => (j.pre_tokenizer = { type: 'Digits', individual_digits: true }), 'pre_tokenizer type "Digits"'],
  // Split is run only with the regexes checked against Rust (decoder-tokenizers.test.ts).
  ['pre-tokenizer Split regex', (j) => (j.pre_tokenizer = { type: 'Split', pattern: { Regex: '\\s' }, behavior: 'Isolated', invert: false }), 'Split with a regex citebench has not checked'],
];
for (const [what, mutate, named] of UNSUPPORTED) {
  // transformers.js would guess or skip these and give other ids without a word.
  test(`a tokenizer.json ${what} citebench does not tokenise exactly is a one-line CitebenchError naming the file and the type`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'cb-tok-'));
    try {
      cpSync(join(ROOT, 'modernbert-bpe'), dir, { recursive: true });
      const p = join(dir, 'tokenizer.json');
      const j = JSON.parse(readFileSync(p, 'utf8'));
      mutate(j);
      writeFileSync(p, JSON.stringify(j));
      assert.throws(
        () => loadArticleTokenizer(dir),
        (e: unknown) => e instanceof CitebenchError && e.message.includes('tokenizer.json') && e.message.includes(named) && !e.message.includes('\n'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
