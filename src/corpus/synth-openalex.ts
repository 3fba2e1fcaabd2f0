/**
 * `synth --profile openalex`: the 's2orc-raw' corpus (its records, their years, texts, fields and citation graph)
 * written as OpenAlex works in a snapshot's layout (`updated_date=…/part_NNNN.gz` and a `manifest`), for measuring
 * and testing `corpus build` on OpenAlex-shaped input at scale. Coverage, from OpenAlex's documentation
 * (docs.openalex.org, "Work object", "Concepts", "Snapshot data format") where it publishes it:
 *  - abstracts: "over 60% of works in 2022 have abstract data, compared to 45% for works older than 2000" —
 *    roughly half; the 's2orc-raw' records' 48.8 % (the real S2ORC sample's share) is kept;
 *  - concepts: "About 85% of works are tagged with at least one concept": works keep their MAG fields as level-0
 *    concepts scored 0.30–0.99 except 11 % more of them (beyond the 4.7 % without a field), which get none; each
 *    work with concepts also carries deeper concepts (levels 1–3) and one attached root below the assignment
 *    threshold of 0.3, some at 0, as the documentation's example work does;
 *  - references: the 's2orc-raw' graph (calibrated on the real S2ORC sample); OpenAlex's reference coverage is
 *    comparable to Web of Science's and Scopus's (Culbert et al. 2024, "Reference Coverage Analysis of OpenAlex
 *    compared to Web of Science and Scopus", arXiv:2401.16359); `cited_by_count` is each work's inbound count in
 *    the whole synthetic corpus;
 *  - size: "The gzip-compressed snapshot takes up about 330 GB and decompresses to about 1.6 TB" over ~278 M works
 *    is ~5.8 kB of JSON a work: authorships, locations, counts by year, related works and topics bring the
 *    synthetic works there (5.6 kB measured over 200 k works), since reading that JSON is most of the build;
 *  - types: 8 % of works get a type the default build leaves out (book chapters, datasets, paratext, editorials,
 *    other) and 0.05 % are retracted — illustrative shares, not published ones, so that the exclusions are
 *    exercised; the rest are articles, with 3 % preprints and 2 % reviews.
 */
import { MAG_ROOT_CONCEPT_IDS } from './fields.ts';
import type { Rng } from '../util/rng.ts';

/** The synthetic snapshot's one partition. */
export const SYNTH_OPENALEX_DATE = '2025-11-04';
const ROOTS: Record<string, string> = MAG_ROOT_CONCEPT_IDS;
const ROOT_NAMES = Object.keys(ROOTS);
/** A topic field for each MAG field (synthetic data, not a crosswalk). */
const TOPIC_FIELD: Record<string, number> = {
  Art: 12, Biology: 11, Business: 14, Chemistry: 16, 'Computer Science': 17, Economics: 20, Engineering: 22,
  'Environmental Science': 23, Geography: 33, Geology: 19, History: 12, 'Materials Science': 25, Mathematics: 26,
  Medicine: 27, Philosophy: 12, Physics: 31, 'Political Science': 33, Psychology: 32, Sociology: 33,
};
const OTHER_TYPES = ['book-chapter', 'book-chapter', 'book-chapter', 'dataset', 'dataset', 'paratext', 'editorial', 'other'];
const OA = 'https://openalex.org/';

/** A synthetic article's OpenAlex id: `W` and 10 digits (its 9-digit paper id plus 2·10^9). */
function workId(paperId: string): string {
  return `W${2_000_000_000 + Number(paperId)}`;
}

export interface WorkParts {
  paperId: string;
  title: string;
  abstract: string | null;
  year: number | null;
  fields: string[];
  /** Paper ids of the works it cites (in the corpus, or outside it). */
  references: string[];
  citedBy: number;
}

/** The work's JSON line; `r` continues the article's own stream (the parts were drawn from it first). */
export function workJson(p: WorkParts, r: Rng): string {
  const id = workId(p.paperId);
  const inv: Record<string, number[]> | null = p.abstract === null ? null : Object.create(null);
  if (inv) p.abstract!.split(' ').forEach((w, k) => (inv[w] ??= []).push(k));
  const noConcepts = p.fields.length === 0 || r.next() < 0.11;
  const concepts: object[] = [];
  if (!noConcepts) {
    for (const f of p.fields) concepts.push(concept(ROOTS[f], f, 0, 0.3 + r.nextInt(70) / 100));
    const other = ROOT_NAMES[r.nextInt(ROOT_NAMES.length)];
    if (!p.fields.includes(other)) concepts.push(concept(ROOTS[other], other, 0, r.next() < 0.4 ? 0 : r.nextInt(30) / 100));
    for (let k = 6 + r.nextInt(5); k > 0; k--) concepts.push(concept(`C${1_000_000 + r.nextInt(3_000_000_000)}`, `Concept ${r.nextInt(65_000)}`, 1 + r.nextInt(3), r.nextInt(90) / 100));
  }
  const u = r.next();
  const type = u < 0.08 ? OTHER_TYPES[r.nextInt(OTHER_TYPES.length)] : u < 0.11 ? 'preprint' : u < 0.13 ? 'review' : 'article';
  const topicField = p.fields.length ? TOPIC_FIELD[p.fields[0]] : undefined;
  const topic = (k: number) => ({
    id: `${OA}T${10_000 + r.nextInt(4_500)}`, display_name: `Topic ${k} of the work`, score: Math.round(1000 * (0.99 - 0.2 * k)) / 1000,
    subfield: { id: `${OA}subfields/${(topicField ?? 33) * 100 + r.nextInt(40)}`, display_name: 'A subfield' },
    field: { id: `${OA}fields/${topicField ?? 33}`, display_name: 'A field' },
    domain: { id: `${OA}domains/${1 + r.nextInt(4)}`, display_name: 'A domain' },
  });
  const topics = topicField === undefined ? [] : [topic(0), topic(1), topic(2)];
  const source = { id: `${OA}S${100_000_000 + r.nextInt(900_000_000)}`, display_name: `Journal of ${p.fields[0] ?? 'Studies'} ${r.nextInt(5000)}`, issn_l: `${1000 + r.nextInt(9000)}-${1000 + r.nextInt(9000)}`, is_oa: r.next() < 0.3, type: 'journal' };
  const location = { is_oa: source.is_oa, landing_page_url: `https://doi.org/10.${1000 + r.nextInt(9000)}/${id.toLowerCase()}`, pdf_url: null, source, license: null, version: 'publishedVersion' };
  const nAuthors = 1 + r.nextInt(8);
  const work = {
    id: OA + id,
    doi: location.landing_page_url,
    title: p.title,
    display_name: p.title,
    publication_year: p.year,
    publication_date: p.year === null ? null : `${p.year}-0${1 + r.nextInt(9)}-1${r.nextInt(10)}`,
    ids: { openalex: OA + id, doi: location.landing_page_url, mag: String(r.nextInt(3_000_000_000)) },
    language: 'en',
    primary_location: location,
    type,
    type_crossref: type === 'article' ? 'journal-article' : type,
    open_access: { is_oa: source.is_oa, oa_status: source.is_oa ? 'gold' : 'closed', oa_url: null, any_repository_has_fulltext: false },
    authorships: Array.from({ length: nAuthors }, (_, k) => ({
      author_position: k === 0 ? 'first' : k === nAuthors - 1 ? 'last' : 'middle',
      author: { id: `${OA}A${5_000_000_000 + r.nextInt(900_000_000)}`, display_name: `Author ${r.nextInt(1_000_000)}`, orcid: null },
      institutions: [{ id: `${OA}I${100_000_000 + r.nextInt(900_000_000)}`, display_name: `University ${r.nextInt(20_000)}`, ror: null, country_code: 'US', type: 'education' }],
      countries: ['US'], is_corresponding: k === 0, raw_author_name: `Author ${r.nextInt(1_000_000)}`,
    })),
    cited_by_count: p.citedBy,
    biblio: { volume: String(1 + r.nextInt(80)), issue: String(1 + r.nextInt(12)), first_page: String(1 + r.nextInt(900)), last_page: null },
    is_retracted: r.next() < 0.0005,
    is_paratext: type === 'paratext',
    primary_topic: topics[0] ?? null,
    topics,
    concepts,
    mesh: [],
    locations_count: 1,
    locations: [location],
    referenced_works: p.references.map((x) => OA + workId(x)),
    referenced_works_count: p.references.length,
    related_works: Array.from({ length: 10 }, () => `${OA}W${2_000_000_000 + r.nextInt(900_000_000)}`),
    abstract_inverted_index: inv,
    counts_by_year: Array.from({ length: Math.min(10, p.citedBy) }, (_, k) => ({ year: 2024 - k, cited_by_count: 1 + r.nextInt(5) })),
    updated_date: `${SYNTH_OPENALEX_DATE}T0${r.nextInt(10)}:00:00.000000`,
    created_date: `${p.year ?? 2016}-01-01`,
  };
  return JSON.stringify(work);
}

function concept(id: string, name: string, level: number, score: number): object {
  return { id: OA + id, wikidata: `https://www.wikidata.org/wiki/Q${id.slice(1)}`, display_name: name, level, score };
}
