// Tokenizers of today's decoder embedders (Qwen3-Embedding / gte-Qwen2, EmbeddingGemma, Llama / Mistral / e5-mistral,
// Llama 3) against Python transformers 5.18's AutoTokenizer, which rebuilds Qwen2Tokenizer, GemmaTokenizer and
// LlamaTokenizer from their class definition (tokenizer-classes.ts). Folders and golden ids:
// scripts/dev/make-decoder-tokenizer-fixtures.py (vocabularies trained on the S2ORC and SciRepEval samples, ODC-BY).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeTruncated, loadArticleTokenizer, type ArticleTokenizer } from '../../src/retrieval/dense/tokenizer.ts';
import { tokenizerClass } from '../../src/retrieval/dense/tokenizer-classes.ts';
import { CitebenchError, InputError } from '../../src/util/errors.ts';
import { SHARED, skipNoShared } from '../helpers/shared.ts';

const ROOT = new URL('./fixtures/decoder-tokenizers', import.meta.url).pathname;

interface Case { text: string; body: number[]; withSpecial: number[]; truncated: Record<string, number[]> }
interface FolderGolden {
  class: string;
  paddingSide: 'left' | 'right';
  paddingSideDefault: 'left' | 'right';
  sepToken: string | null;
  prefixSuffix: number[];
  rawDiffers: number[];
  cases: Case[];
  real: Record<string, { body: number[]; t64: number[] }>;
}
interface Variant {
  name: string;
  folder: string;
  config: Record<string, unknown>;
  addedTokens: Record<string, Record<string, unknown>>;
  tokenizerJson: Record<string, unknown>;
  texts: string[];
  ids: number[][];
  withSpecial: number[];
}
const golden = JSON.parse(readFileSync(join(ROOT, 'golden.json'), 'utf8')) as { realCount: number; folders: Record<string, FolderGolden>; variants: Variant[] };
const folders = readdirSync(ROOT).filter((n) => statSync(join(ROOT, n)).isDirectory()).sort();

const same = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.from(a).every((x, i) => x === b[i]);
const show = (s: string) => JSON.stringify(s.length > 50 ? s.slice(0, 50) + '…' : s);

function withTempCopy(name: string, edit: (dir: string) => void, check: (dir: string) => void): void {
  const dir = join(mkdtempSync(join(tmpdir(), 'cb-dectok-')), name);
  try {
    cpSync(join(ROOT, name), dir, { recursive: true });
    edit(dir);
    check(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
function editJson(path: string, f: (j: Record<string, any>) => void): void {
  const j = JSON.parse(readFileSync(path, 'utf8'));
  f(j);
  writeFileSync(path, JSON.stringify(j));
}

test('every decoder tokenizer fixture folder has golden ids, and the families are all there', () => {
  assert.deepEqual(folders, Object.keys(golden.folders).sort());
  const classes = new Set(Object.values(golden.folders).map((g) => g.class));
  for (const c of ['Qwen2Tokenizer', 'GemmaTokenizer', 'LlamaTokenizer', 'TokenizersBackend']) assert.ok(classes.has(c), c);
});

for (const name of folders) {
  test(`${name}: body, special tokens and encodeTruncated equal AutoTokenizer's on adversarial strings; padding side and sep as Python's`, () => {
    const g = golden.folders[name]!;
    const tok = loadArticleTokenizer(join(ROOT, name));
    assert.deepEqual([...tok.prefix, ...tok.suffix], g.prefixSuffix, 'special tokens of one sequence');
    assert.equal(tok.paddingSide, g.paddingSide);
    // None of these tokenizers has a sep_token: title and abstract are joined by a space.
    assert.equal(g.sepToken, null);
    assert.equal(tok.sepToken, ' ');
    assert.equal(tok.sepSource, 'space');
    const bad: string[] = [];
    for (const c of g.cases) {
      const body = tok.body(c.text);
      if (!same(body, c.body)) bad.push(`${show(c.text)} body: python ${c.body.slice(0, 16)} citebench ${body.slice(0, 16)}`);
      if (!same([...tok.prefix, ...body, ...tok.suffix], c.withSpecial)) bad.push(`${show(c.text)} with special tokens: python ${c.withSpecial.slice(0, 16)}`);
      for (const [n, want] of Object.entries(c.truncated)) {
        if (Number(n) < g.prefixSuffix.length) {
          // Python's ids there follow no simple rule (the text cut at a special token inside it, or whole): refused.
          assert.throws(() => encodeTruncated(tok, c.text, Number(n)), (e: unknown) => e instanceof CitebenchError && /cannot hold/.test(e.message));
          continue;
        }
        const got = encodeTruncated(tok, c.text, Number(n));
        if (!same(got, want)) bad.push(`${show(c.text)} max_length ${n}: python ${want.slice(0, 16)} citebench ${Array.from(got.slice(0, 16))}`);
      }
    }
    assert.equal(bad.length, 0, `${bad.length} differences:\n${bad.slice(0, 6).join('\n')}`);
    // Truncation was exercised and kept the special tokens.
    assert.ok(g.cases.some((c) => c.truncated['16']!.length === 16 && c.body.length > 16));
  });

  test(`${name}: ids of real S2ORC and SciRepEval texts equal AutoTokenizer's (body, and truncation to 64)`, { skip: skipNoShared }, () => {
    const g = golden.folders[name]!;
    const tok = loadArticleTokenizer(join(ROOT, name));
    const texts = realTexts();
    assert.equal(texts.length, golden.realCount);
    const found = new Set<string>();
    const bad: string[] = [];
    for (const text of texts) {
      const key = createHash('sha256').update(text, 'utf8').digest('hex');
      const want = g.real[key];
      if (!want) continue;
      found.add(key);
      if (!same(tok.body(text), want.body)) bad.push(`${show(text)} body`);
      if (!same(encodeTruncated(tok, text, 64), want.t64)) bad.push(`${show(text)} max_length 64`);
    }
    assert.equal(found.size, Object.keys(g.real).length, 'every golden text is found in ../shared (same selection as the maker)');
    assert.equal(bad.length, 0, bad.slice(0, 6).join('\n'));
    assert.ok(Object.values(g.real).some((r) => r.body.length > 200), 'some real texts are long');
  });

  test(`${name}: without padding_side in tokenizer_config.json the side is the class's, as Python's`, () => {
    withTempCopy(
      name,
      (dir) => editJson(join(dir, 'tokenizer_config.json'), (c) => delete c.padding_side),
      (dir) => assert.equal(loadArticleTokenizer(dir).paddingSide, golden.folders[name]!.paddingSideDefault),
    );
  });
}

/** The texts the maker took from ../shared: same files, same order, same rule. */
function realTexts(): string[] {
  const jsonl = (p: string) => readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
  const s2orc = jsonl(join(SHARED, 'data', 's2orc-sample', 'metadata.jsonl')).filter((r) => r.abstract);
  const fos = JSON.parse(readFileSync(join(SHARED, 'data', 'scirepeval-sample', 'fos_small.json'), 'utf8')) as Record<string, any>[];
  const search = jsonl(join(SHARED, 'data', 'scirepeval-sample', 'search_small.jsonl'));
  return [
    ...s2orc.slice(0, 10).map((r) => (r.title || '') + ' ' + r.abstract),
    ...fos.slice(0, 5).map((r) => (r.title || '') + ' ' + (r.abstract || '')),
    ...search.slice(0, 5).map((r) => r.query as string),
  ];
}

for (const v of golden.variants) {
  test(`${v.name}: ${v.folder} with ${JSON.stringify({ ...v.config, ...v.addedTokens, ...v.tokenizerJson }).slice(0, 90)}: ids as AutoTokenizer's`, () => {
    withTempCopy(
      v.folder,
      (dir) => {
        editJson(join(dir, 'tokenizer_config.json'), (c) => Object.assign(c, v.config));
        editJson(join(dir, 'tokenizer.json'), (j) => {
          for (const t of j.added_tokens) Object.assign(t, v.addedTokens[t.content] ?? {});
          Object.assign(j, v.tokenizerJson);
        });
      },
      (dir) => {
        const tok = loadArticleTokenizer(dir);
        v.texts.forEach((text, i) => assert.deepEqual(tok.body(text), v.ids[i], show(text)));
        assert.deepEqual([...tok.prefix, ...tok.body('a b'), ...tok.suffix], v.withSpecial);
      },
    );
  });
}

test('the rebuild matters: llama-hub (LlamaTokenizer) and mistral-hub (the same tokenizer.json run as it is) differ where Python says', () => {
  const llama = golden.folders['llama-hub']!;
  assert.ok(llama.rawDiffers.length > 0, 'the fixture must have texts where tokenizer.json as-is gives other ids');
  const a = loadArticleTokenizer(join(ROOT, 'llama-hub'));
  const b = loadArticleTokenizer(join(ROOT, 'mistral-hub'));
  for (const i of llama.rawDiffers) {
    const text = llama.cases[i]!.text;
    assert.notDeepEqual([...a.prefix, ...a.body(text), ...a.suffix], [...b.prefix, ...b.body(text), ...b.suffix], show(text));
  }
});

test('Qwen3-Embedding keeps its tokenizer.json post-processor: <|endoftext|> after the text, kept by truncation', () => {
  const tok = loadArticleTokenizer(join(ROOT, 'qwen3-embedding'));
  const eot = JSON.parse(readFileSync(join(ROOT, 'qwen3-embedding', 'tokenizer.json'), 'utf8')).added_tokens.find((t: { content: string }) => t.content === '<|endoftext|>').id;
  assert.deepEqual(tok.prefix, []);
  assert.deepEqual(tok.suffix, [eot]);
  const ids = encodeTruncated(tok, 'a long text '.repeat(50), 10);
  assert.equal(ids.length, 10);
  assert.equal(ids[9], eot);
});

test('AutoTokenizer class resolution: the named class, the registered one, and the generic backend where they disagree', () => {
  assert.equal(tokenizerClass({ tokenizer_class: 'LlamaTokenizer' }, 'mistral'), 'TokenizersBackend');
  assert.equal(tokenizerClass({ tokenizer_class: 'LlamaTokenizerFast' }, 'llama'), 'LlamaTokenizer');
  assert.equal(tokenizerClass({ tokenizer_class: 'Qwen2TokenizerFast' }, 'qwen2'), 'Qwen2Tokenizer');
  assert.equal(tokenizerClass({ tokenizer_class: 'PreTrainedTokenizerFast' }, 'qwen2'), 'Qwen2Tokenizer');
  // The generic classes: transformers.js's PreTrainedTokenizer over the file as it is.
  assert.equal(tokenizerClass({ tokenizer_class: 'PreTrainedTokenizerFast' }, 'qwen3'), 'PreTrainedTokenizer');
  assert.equal(tokenizerClass({}, 'gemma3_text'), 'GemmaTokenizer');
  assert.equal(tokenizerClass({}, 'llama'), 'PreTrainedTokenizerFast');
});

test('a padding_side other than left or right is a one-line InputError naming tokenizer_config.json and the key', () => {
  withTempCopy(
    'qwen3-embedding',
    (dir) => editJson(join(dir, 'tokenizer_config.json'), (c) => (c.padding_side = 'sideways')),
    (dir) =>
      assert.throws(
        () => loadArticleTokenizer(dir),
        (e: unknown) => e instanceof InputError && e.message.includes('tokenizer_config.json') && e.message.includes('padding_side') && !e.message.includes('\n'),
      ),
  );
});

const REFUSED: [string, string, (dir: string) => void, string][] = [
  ['a Split regex citebench has not checked', 'llama3-bpe', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.pre_tokenizer.pretokenizers[0].pattern.Regex = '\\s+|\\w+')), 'Split with a regex'],
  ['a Split behavior other than isolated', 'llama3-bpe', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.pre_tokenizer.pretokenizers[0].behavior = 'Removed')), 'behavior "Removed"'],
  ['a Split on a string the normaliser keeps', 'mistral-hub', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.pre_tokenizer = { type: 'Split', pattern: { String: '▁' }, behavior: 'MergedWithPrevious', invert: false })), 'Split on'],
  ['ByteLevel with a prefix space after a Split', 'llama3-bpe', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.pre_tokenizer.pretokenizers[1].add_prefix_space = true)), 'add_prefix_space'],
  ['Metaspace that splits over BPE', 'mistral-hub', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.pre_tokenizer = { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true })), 'Metaspace with split'],
  ['byte_fallback without all byte tokens', 'mistral-hub', (d) => editJson(join(d, 'tokenizer.json'), (j) => delete j.model.vocab['<0x41>']), '<0x41>'],
  ['a post-processor Sequence of two templates', 'llama3-bpe', (d) => editJson(join(d, 'tokenizer.json'), (j) => j.post_processor.processors.push(j.post_processor.processors[1])), 'more than one template'],
  ['a template whose special token ids are not the vocabulary\'s', 'qwen3-embedding', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.post_processor.special_tokens['<|endoftext|>'].ids = [5])), 'TemplateProcessing special token'],
  ['an NFKC normaliser', 'llama3-bpe', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.normalizer = { type: 'NFKC' })), 'normalizer type "NFKC"'],
  ['GemmaTokenizer over a model that is not BPE', 'gemma-embedding', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.model = { type: 'WordPiece', vocab: j.model.vocab, unk_token: '<unk>' })), 'GemmaTokenizer rebuilds a BPE'],
  ['added tokens transformers would number otherwise', 'qwen3-embedding', (d) => editJson(join(d, 'tokenizer_config.json'), (c) => (c.added_tokens_decoder = {
    1800: { content: '<|endoftext|>', special: true, normalized: false }, 1802: { content: '<|im_end|>', special: true, normalized: false },
  })), 'numbers the added tokens consecutively'],
  ['Metaspace prepend_scheme first with a normalized added token', 'llama-hub', (d) => editJson(join(d, 'tokenizer.json'), (j) => (j.added_tokens[2].normalized = true)), 'prepend_scheme first'],
  ['a named special token outside the vocabulary', 'qwen3-embedding', (d) => editJson(join(d, 'tokenizer_config.json'), (c) => (c.mask_token = '<mask>')), 'mask_token "<mask>"'],
];
for (const [what, name, edit, named] of REFUSED) {
  // transformers.js would give other ids than Rust `tokenizers` here, without a word.
  test(`${what} is refused in one line naming the file (${name})`, () => {
    withTempCopy(name, edit, (dir) =>
      assert.throws(
        () => loadArticleTokenizer(dir),
        (e: unknown) => e instanceof CitebenchError && e.message.includes('tokenizer.json') && e.message.includes(named) && !e.message.includes('\n'),
      ),
    );
  });
}

test('a tokenizer with a sep_token still reports it, from the tokenizer', () => {
  const bert: ArticleTokenizer = loadArticleTokenizer(new URL('./fixtures/tokenizers/bert-wordpiece', import.meta.url).pathname);
  assert.equal(bert.sepToken, '[SEP]');
  assert.equal(bert.sepSource, 'tokenizer');
  assert.equal(bert.paddingSide, 'right');
});
