// ASPIRE's sentence splitter on sentences taken verbatim from the shared real abstracts (S2ORC sample and
// SciRepEval sample); the expected splits are the linguistic ones, which are also what ASPIRE's scispaCy
// tokenizer + sentencizer gives for these passages (bench/dense/sentence_peer.py), except where noted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHARED, skipNoShared } from '../helpers/shared.ts';
import { splitSentences } from '../../src/retrieval/dense/sentences.ts';

const split = (t: string) => splitSentences(t);

test('sentence ends the old splitter missed: units, formulas, plurals of numbers, no space, acronyms', () => {
  // "°C." and "μm." are units, not initials
  assert.deepEqual(split('followed by drying and thermal treatment up to 1000 °C. Product composition and oxide phase transitions were characterised'), [
    'followed by drying and thermal treatment up to 1000 °C.',
    'Product composition and oxide phase transitions were characterised',
  ]);
  assert.deepEqual(split('are deposited on the light emitting surface of the device with a period of 2 μm. Coating the backside with Ag has increased'), [
    'are deposited on the light emitting surface of the device with a period of 2 μm.',
    'Coating the backside with Ag has increased',
  ]);
  assert.deepEqual(split('Emissions to be discussed in this study are CO2, CH4, and N2O. The approach is carried out with a system dynamics'), [
    'Emissions to be discussed in this study are CO2, CH4, and N2O.',
    'The approach is carried out with a system dynamics',
  ]);
  assert.deepEqual(split('and the inhibition of glycogen synthase kinase 3s. These proposed actions are induced'), [
    'and the inhibition of glycogen synthase kinase 3s.',
    'These proposed actions are induced',
  ]);
  assert.deepEqual(split('developed in a similar fashion up to the 1970s. The 1970s were identified as a crucial turning point'), [
    'developed in a similar fashion up to the 1970s.',
    'The 1970s were identified as a crucial turning point',
  ]);
  // no space after the period (S2ORC/SciRepEval text extraction)
  assert.deepEqual(split('related to unemployment and retirement decisions of workers.The first chapter examines the impact'), [
    'related to unemployment and retirement decisions of workers.',
    'The first chapter examines the impact',
  ]);
  assert.deepEqual(split('phospho-relay components has received little attention.ResultsWe established that'), [
    'phospho-relay components has received little attention.',
    'ResultsWe established that',
  ]);
  // an upper-case acronym is not the abbreviation "Dr."
  assert.deepEqual(split('Thus, an additional CDE step is not needed after DR. We demonstrate the usefulness'), [
    'Thus, an additional CDE step is not needed after DR.',
    'We demonstrate the usefulness',
  ]);
});

test("S2ORC's ':::' paragraph separators end the sentence before them and stay with it", () => {
  assert.deepEqual(
    split('and there is a lack of comment on human rights or other values. ::: Nevertheless, that has not prevented the identified powers'),
    ['and there is a lack of comment on human rights or other values. :::', 'Nevertheless, that has not prevented the identified powers'],
  );
  assert.deepEqual(
    split('admitted to the ICU after surgery. ::: ::: ::: RESULTS ::: The overall ICU and hospital mortality was 20.4% and 33.3%, respectively.'),
    ['admitted to the ICU after surgery. ::: ::: :::', 'RESULTS ::: The overall ICU and hospital mortality was 20.4% and 33.3%, respectively.'],
  );
  // a symbol is not a separator: "©" starts the copyright line
  assert.deepEqual(split('is capable of identifying acceptable candidate tablet formulations. © 2010 Wiley-Liss, Inc. and the American Pharmacists Association'), [
    'is capable of identifying acceptable candidate tablet formulations.',
    '© 2010 Wiley-Liss, Inc. and the American Pharmacists Association',
  ]);
});

test('no sentence end after initials with inner periods, "v." and the usual abbreviations', () => {
  for (const t of [
    'characterize the academic difficulties faced by children with ADHD (U.S. Department of Education, 2015).',
    'are genetically based in the DNA of the U.S. Constitution.',
    'With the rise of large mail-order companies such as L.L. Bean and the Home Shopping Network, the industry is expanding.',
    'Since Quill Corp. v. North Dakota,(17) only the dormant Commerce Clause substantial nexus requirement mandates it.',
    'causes tumor regression (A. A. Dlugosz and S. H. Yuspa, Cancer Res., 51: 4677-4684, 1991).',
    'Patients who received i.v. vasoactive drugs on days 1 and 2 had hospital mortality of 54.4% and 60.5%, respectively.',
    'Positive associations were found e.g. for people receiving invalidity pension, i.e. a subgroup, as shown in Fig. 2 and Eq. 3.',
    'The CFs of the different populations of A. grahami ranged from 1.1 to 1.8 (p < 0.05), as in Smith et al. (2010).',
  ]) assert.deepEqual(split(t), [t]);
});

test('kept: citations, parenthesised notes and enumerations start their own sentence', () => {
  // spaCy's sentencizer leaves the opening bracket on the previous sentence ("research. [", "1] Although"); not copied
  assert.deepEqual(
    split('is an active area of scientific research. [1] Although still controversial, there is a growing body of evidence (gliomas). [2-7] hCMV induces alterations.'),
    ['is an active area of scientific research.', '[1] Although still controversial, there is a growing body of evidence (gliomas).', '[2-7] hCMV induces alterations.'],
  );
  assert.deepEqual(split('unless copper is added to lower the melting point of the sample. (Author)'), [
    'unless copper is added to lower the melting point of the sample.',
    '(Author)',
  ]);
  assert.deepEqual(split('Two important preliminary results have been obtained. (1) A single phase crystallized. (2) A complete system was synthesized.'), [
    'Two important preliminary results have been obtained.',
    '(1) A single phase crystallized.',
    '(2) A complete system was synthesized.',
  ]);
});

test('every shared real abstract splits into sentences that rebuild it', { skip: skipNoShared }, () => {
  const lines = readFileSync(join(SHARED, 'data/s2orc-sample/metadata.jsonl'), 'utf8').trim().split('\n');
  const abstracts = lines.map((l) => JSON.parse(l).abstract).filter((a: string | null) => a && a.trim());
  assert.ok(abstracts.length > 400);
  for (const a of abstracts) {
    const s = split(a);
    assert.ok(s.length >= 1);
    // nothing lost or reordered: the sentences are the abstract's non-space characters, in order
    assert.equal(s.join('').replace(/\s+/g, ''), a.replace(/\s+/g, ''));
  }
});
