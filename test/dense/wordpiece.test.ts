// The vocab.txt route (no tokenizer.json) against Python transformers' BertTokenizerFast: the golden ids and
// tokenizer.json parts come from scripts/dev/make-wordpiece-fixture.py (texts: hand-made cases, S2ORC and
// SciRepEval samples, ODC-BY; see the fixture's note).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Encoder } from '../../src/retrieval/dense/encoder.ts';
import { loadTokenizer } from '../../src/retrieval/dense/tokenizer.ts';
import { resolveModel } from '../../src/retrieval/dense/models.ts';
import {
  bertParityRewrite,
  bertTokenizerConfig,
  bertTokenizerFromVocab,
  bertTokenizerJson,
  parseVocab,
  readTokenizerConfig,
  tokenizerFiles,
} from '../../src/retrieval/dense/wordpiece.ts';
import { CitebenchError, InputError } from '../../src/util/errors.ts';

const TINY = new URL('../../../shared/models/tiny-scibert-random', import.meta.url).pathname;
const GOLDEN = new URL('./fixtures/wordpiece-golden.json', import.meta.url).pathname;
const skip = existsSync(join(TINY, 'vocab.txt')) ? false : `needs ${TINY} (../shared)`;

interface Golden {
  texts: string[];
  variants: Record<string, { config: object | null; tokenizer: Record<string, unknown>; texts: number; ids: number[][] }>;
  articles: { title: string; abstract: string; ids: number[] }[];
  mini: { vocab: string; config: object; tokenizer: Record<string, unknown>; texts: string[]; ids: number[][] };
}
const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;

const scratch: string[] = [];
process.on('exit', () => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A model folder: the tiny model's files, without tokenizer.json, with these vocab/config files. */
function folder(files: Record<string, string | Uint8Array | null>, withModel = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'citebench-wordpiece-'));
  scratch.push(dir);
  if (withModel) {
    mkdirSync(join(dir, 'onnx'));
    copyFileSync(join(TINY, 'onnx', 'model.onnx'), join(dir, 'onnx', 'model.onnx'));
    copyFileSync(join(TINY, 'config.json'), join(dir, 'config.json'));
  }
  for (const [name, data] of Object.entries(files)) if (data !== null) writeFileSync(join(dir, name), data);
  return dir;
}

const vocabText = () => readFileSync(join(TINY, 'vocab.txt'), 'utf8');
const withoutVocab = ({ model, ...rest }: { model: Record<string, unknown> }) => {
  const { vocab: _vocab, ...m } = model;
  return { ...rest, model: m };
};

test('tokenizer.json: equal to the one Python writes for the shared folder, and to the Python-saved parts of every variant', { skip }, () => {
  const shipped = JSON.parse(readFileSync(join(TINY, 'tokenizer.json'), 'utf8'));
  const config = JSON.parse(readFileSync(join(TINY, 'tokenizer_config.json'), 'utf8'));
  // Key order too: the same serialisation.
  assert.equal(JSON.stringify(bertTokenizerJson(vocabText(), config, 'vocab.txt')), JSON.stringify(shipped));
  for (const [name, v] of Object.entries(golden.variants)) {
    const mine = bertTokenizerJson(vocabText(), v.config ?? undefined, 'vocab.txt');
    assert.deepEqual(withoutVocab(mine as never), v.tokenizer, name);
    assert.deepEqual(mine.model.vocab, shipped.model.vocab, name);
  }
  // [PAD] and [MASK] missing from the vocabulary get the next ids; CRLF and trailing blanks are cut.
  assert.equal(JSON.stringify(bertTokenizerJson(golden.mini.vocab, golden.mini.config, 'vocab.txt')), JSON.stringify(golden.mini.tokenizer));
});

test('ids: the vocab.txt route gives Python BertTokenizerFast\'s ids under every tokenizer_config.json variant', { skip }, async () => {
  const vocab = vocabText();
  for (const [name, v] of Object.entries(golden.variants)) {
    const dir = folder({ 'vocab.txt': vocab, 'tokenizer_config.json': v.config ? JSON.stringify(v.config) : null });
    assert.equal(tokenizerFiles(dir)?.kind, 'vocab.txt');
    const { tokenizer, cls, sep } = await loadTokenizer({ dir });
    assert.deepEqual([cls, sep], [102, 103]);
    assert.equal(v.ids.length, v.texts);
    for (let i = 0; i < v.texts; i++) assert.deepEqual(tokenizer.encode(golden.texts[i]), v.ids[i], `${name} #${i} ${JSON.stringify(golden.texts[i].slice(0, 60))}`);
  }
  const mini = await loadTokenizer({ dir: folder({ 'vocab.txt': golden.mini.vocab, 'tokenizer_config.json': JSON.stringify(golden.mini.config) }) });
  golden.mini.texts.forEach((t, i) => assert.deepEqual(mini.tokenizer.encode(t), golden.mini.ids[i], t));
});

test('ids: a model folder without tokenizer.json encodes articles as Python does (title [SEP] abstract, 512 keeping the final [SEP])', { skip }, async () => {
  const dir = folder({ 'vocab.txt': vocabText(), 'tokenizer_config.json': readFileSync(join(TINY, 'tokenizer_config.json'), 'utf8') }, true);
  const enc = await Encoder.load(resolveModel(dir));
  try {
    for (const a of golden.articles) assert.deepEqual(Array.from(enc.tokenize(a).ids), a.ids, a.title);
    assert.equal(golden.articles.filter((a) => a.ids.length === 512).length, 2, 'the fixture truncates');
  } finally {
    await enc.release();
  }
});

test('ids: the folder with tokenizer.json and its vocab.txt-only copy give identical ids', { skip }, async () => {
  const viaJson = (await loadTokenizer({ dir: TINY })).tokenizer;
  const viaVocab = (await loadTokenizer({ dir: folder({ 'vocab.txt': vocabText(), 'tokenizer_config.json': readFileSync(join(TINY, 'tokenizer_config.json'), 'utf8') }) })).tokenizer;
  const texts = [...golden.texts, ...golden.articles.map((a) => `${a.title} [SEP] ${a.abstract}`)];
  for (const t of texts) {
    assert.deepEqual(viaVocab.encode(t), viaJson.encode(t), t.slice(0, 60));
    assert.deepEqual(viaVocab.encode(t, { add_special_tokens: false }), viaJson.encode(t, { add_special_tokens: false }));
  }
});

test('resolveModel: vocab.txt stands in for tokenizer.json and its files are in the fingerprint', { skip }, () => {
  const vocab = vocabText();
  const dir = folder({ 'vocab.txt': vocab }, true);
  const fp = () => resolveModel(dir).fingerprint;
  const bare = fp();
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: false }));
  const cased = fp();
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true }));
  const lower = fp();
  writeFileSync(join(dir, 'vocab.txt'), vocab.replace('\nthe\n', '\nthee\n'));
  const edited = fp();
  assert.equal(new Set([bare, cased, lower, edited]).size, 4);
  writeFileSync(join(dir, 'vocab.txt'), vocab);
  assert.equal(fp(), lower, 'same files, same fingerprint');
  // With neither file the folder is not a model.
  rmSync(join(dir, 'vocab.txt'));
  assert.throws(() => resolveModel(dir), /lacks tokenizer\.json or vocab\.txt/);
});

test('readTokenizerConfig: absent files give BertTokenizer defaults; special_tokens_map.json names the tokens', () => {
  const none = readTokenizerConfig(folder({}));
  assert.deepEqual(none, {
    config: {
      tokenizer_class: 'BertTokenizer', do_lower_case: true, strip_accents: null, tokenize_chinese_chars: true, model_max_length: 1e30,
      unk_token: '[UNK]', sep_token: '[SEP]', pad_token: '[PAD]', cls_token: '[CLS]', mask_token: '[MASK]',
    },
    files: [],
  });
  const dir = folder({
    'tokenizer_config.json': JSON.stringify({ do_lower_case: false, strip_accents: true, tokenize_chinese_chars: false, model_max_length: 512, cls_token: '<c>' }),
    'special_tokens_map.json': JSON.stringify({ cls_token: { content: '<cls>', lstrip: false, normalized: false, rstrip: false, single_word: false }, sep_token: '<sep>' }),
    'added_tokens.json': '{}',
  });
  const r = readTokenizerConfig(dir);
  assert.deepEqual(
    { ...r.config, files: r.files.map((f) => f.slice(dir.length + 1)) },
    {
      tokenizer_class: 'BertTokenizer', do_lower_case: false, strip_accents: true, tokenize_chinese_chars: false, model_max_length: 512,
      unk_token: '[UNK]', sep_token: '<sep>', pad_token: '[PAD]', cls_token: '<cls>', mask_token: '[MASK]',
      files: ['tokenizer_config.json', 'special_tokens_map.json', 'added_tokens.json'],
    },
  );
  // A v4.34+ config (added_tokens_decoder) is read without special_tokens_map.json, as transformers does.
  const modern = folder({
    'tokenizer_config.json': JSON.stringify({ added_tokens_decoder: { '0': { content: '[PAD]', special: true, normalized: false } }, do_lower_case: true }),
    'special_tokens_map.json': JSON.stringify({ sep_token: '<ignored>' }),
  });
  assert.equal(readTokenizerConfig(modern).config.sep_token, '[SEP]');
  // The tokenizer built from custom names uses them as its special tokens.
  const v = '[PAD]\n<unk>\n<cls>\n<sep>\nhello\n';
  const json = bertTokenizerJson(v, { unk_token: '<unk>', cls_token: '<cls>', sep_token: '<sep>' }, 'vocab.txt');
  assert.deepEqual(json.added_tokens.map((t) => [t.id, t.content]), [[0, '[PAD]'], [1, '<unk>'], [2, '<cls>'], [3, '<sep>'], [5, '[MASK]']]);
  assert.deepEqual(json.post_processor.special_tokens, { '<cls>': { id: '<cls>', ids: [2], tokens: ['<cls>'] }, '<sep>': { id: '<sep>', ids: [3], tokens: ['<sep>'] } });
});

test('errors: bad vocab.txt and configs give one line naming the file, line or field', () => {
  const err = (f: () => unknown, re: RegExp) =>
    assert.throws(f, (e: unknown) => e instanceof CitebenchError && !e.message.includes('\n') && re.test(e.message));
  err(() => parseVocab('', 'm/vocab.txt'), /^m\/vocab\.txt: empty vocabulary/);
  assert.deepEqual(parseVocab('\n', 'm/vocab.txt'), new Map([['', 0]]), 'one empty line is one (empty) token, as the tokenizers library reads it');
  err(() => parseVocab('[UNK]\na\nb\na \n', 'm/vocab.txt'), /^m\/vocab\.txt:4: token "a" repeats line 2/);
  for (const missing of ['[UNK]', '[CLS]', '[SEP]']) {
    const v = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'x'].filter((t) => t !== missing).join('\n');
    err(() => bertTokenizerJson(v, undefined, 'm/vocab.txt'), new RegExp(`^m/vocab\\.txt: no \\${missing.slice(0, -1)}\\] token`));
  }
  err(() => bertTokenizerConfig({ do_lower_case: 'yes' }, 'm/tokenizer_config.json'), /^m\/tokenizer_config\.json \[do_lower_case\]: must be true or false/);
  err(() => bertTokenizerConfig({ strip_accents: 1 }, 'c.json'), /\[strip_accents\]: must be true, false or null/);
  err(() => bertTokenizerConfig({ model_max_length: -1 }, 'c.json'), /\[model_max_length\]: must be a positive integer/);
  err(() => bertTokenizerConfig({ tokenizer_class: 'RobertaTokenizer' }, 'c.json'), /\[tokenizer_class\]: is "RobertaTokenizer": .*give the folder a tokenizer\.json/);
  err(() => bertTokenizerConfig({ additional_special_tokens: ['<x>'] }, 'c.json'), /\[additional_special_tokens\]: not supported/);
  err(() => bertTokenizerConfig({ cls_token: 5 }, 'c.json'), /\[cls_token\]: must be a string/);
  err(
    () => bertTokenizerJson('[UNK]\n[CLS]\n[SEP]\n', { added_tokens_decoder: { '7': { content: '<new>', special: true } } }, 'm/vocab.txt'),
    /^m\/vocab\.txt \[tokenizer_config\.json added_tokens_decoder\.7\]: "<new>" is not this vocabulary's special token 7/,
  );
  const bad = (files: Record<string, string | Uint8Array>) => () => bertTokenizerFromVocab(folder({ 'vocab.txt': '[UNK]\n[CLS]\n[SEP]\n', ...files }));
  err(bad({ 'tokenizer_config.json': '{"do_lower_case": tru' }), /tokenizer_config\.json:1: malformed JSON at column 19/);
  err(bad({ 'tokenizer_config.json': '[1]' }), /tokenizer_config\.json: must be a JSON object/);
  err(bad({ 'added_tokens.json': '{"<x>": 3}' }), /added_tokens\.json: added tokens are not supported/);
  err(bad({ 'vocab.txt': new Uint8Array([0x5b, 0xff, 0x0a]) }), /vocab\.txt: not valid UTF-8/);
  assert.throws(() => parseVocab('[UNK]\nx\nx\n', 'v'), InputError);
});

test('bertParityRewrite: per-character sigma and CJK beyond U+FFFF, only for BERT normalizers that need it', () => {
  const both = bertParityRewrite({ type: 'BertNormalizer', lowercase: true, handle_chinese_chars: true })!;
  assert.equal(both('pΣ0K+ 𠀀𪛖x'), 'pσ0K+  𠀀  𪛖 x');
  const cased = bertParityRewrite({ type: 'BertNormalizer', lowercase: false, handle_chinese_chars: true })!;
  assert.equal(cased('ΟΔΟΣ 𠀀'), 'ΟΔΟΣ  𠀀 ');
  assert.equal(bertParityRewrite({ type: 'BertNormalizer', lowercase: false, handle_chinese_chars: false }), undefined);
  assert.equal(bertParityRewrite({ type: 'Sequence', normalizers: [] }), undefined);
  assert.equal(bertParityRewrite(null), undefined);
});
