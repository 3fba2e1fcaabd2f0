// The citation spool stores decimal ids as numbers and splits itself into chunks that resolving deletes: the
// edges it resolves must equal a plain Map lookup of the same ids, for every kind of id, across chunk bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CitationSpool, resolveCitations } from '../../src/corpus/citations.ts';
import { IdIndex } from '../../src/corpus/id-index.ts';
import { ValidationReport } from '../../src/corpus/validation.ts';

test('spooled ids (numbers of 1–6 bytes, non-canonical and non-decimal ids) resolve as a Map would; chunks are deleted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cb-spool-'));
  try {
    // Corpus ids: every width of the numeric encoding, the 2^48 bound, ids that must stay strings.
    const corpus = ['0', '7', '255', '256', '65535', '65536', '16777216', '4294967295', '4294967296', '1099511627776',
      '281474976710655', '281474976710656', '999999999999999', '1000000000000000', '0123', '12a', 'p-Ω', '', '42'];
    const index = new IdIndex();
    const byId = new Map<string, number>();
    corpus.forEach((id, i) => {
      index.add(id, i);
      byId.set(id, i);
    });
    const strangers = ['123', '00', '4294967297', 'x'];
    let seed = 5;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = () => (rnd() < 0.1 ? strangers[Math.floor(rnd() * strangers.length)] : corpus[Math.floor(rnd() * corpus.length)]);
    const spool = new CitationSpool(join(dir, 'c.spool'), 64);
    const want: string[] = [];
    let unknown = 0;
    let self = 0;
    corpus.forEach((_, i) => {
      const out = Array.from({ length: Math.floor(rnd() * 9) }, pick);
      const inn = Array.from({ length: Math.floor(rnd() * 5) }, pick);
      spool.add('f.jsonl', i + 1, out, inn);
      for (const [list, outbound] of [[out, true], [inn, false]] as const) {
        for (const id of list) {
          const j = byId.get(id);
          if (j === undefined) unknown++;
          else if (j === i) self++;
          else want.push(outbound ? `${i}>${j}` : `${j}>${i}`);
        }
      }
    });
    spool.close();
    assert.ok(spool.chunks.length > 3, `${spool.chunks.length} chunks`);
    const got: string[] = [];
    const report = new ValidationReport();
    resolveCitations(spool, index, report, (a, b) => got.push(`${a}>${b}`));
    assert.deepEqual(got, want);
    assert.equal(report.count('unknown-citation'), unknown);
    assert.equal(report.count('self-citation'), self);
    assert.ok(unknown > 0 && self > 0);
    assert.deepEqual(readdirSync(dir), [], 'resolving deletes every chunk');
    spool.remove();
    assert.ok(!existsSync(join(dir, 'c.spool.0')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
