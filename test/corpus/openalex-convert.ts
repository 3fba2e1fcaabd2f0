/**
 * S2ORC v2020 metadata records → OpenAlex works (docs.openalex.org, "Work object"), for the tests and the committed
 * fixture (scripts/dev/make-openalex-fixture.ts). The tests' own converter: it shares no code with the reader.
 *
 *   id                       "https://openalex.org/W" + paper_id
 *   title, display_name      title
 *   publication_year         year; publication_date its first of January
 *   abstract_inverted_index  abstract split on white space, each word → the positions it takes (null: null)
 *   referenced_works         the work URLs of outbound_citations, plus every record of the input that lists this one
 *                            among its inbound_citations (OpenAlex holds a citation once, at the citing work)
 *   cited_by_count           distinct inbound_citations (the record's own count of citers)
 *   concepts                 each of mag_field_of_study as its MAG root concept (level 0) scored 0.30–0.99; every
 *                            third work also gets another root concept scored below 0.3 (an ancestor OpenAlex
 *                            attaches, some with score 0) and a level-1 concept, neither of them a field
 *   primary_topic            a topic whose field follows the first MAG field (TOPIC_OF below; another
 *                            classification, only to exercise `fields: topics`), null without fields
 *   type                     article; every 13th preprint, every 17th review (kept by default)
 *   is_paratext, is_retracted  false; updated_date  2020-07-05
 * `extraWorks` makes works the default options leave out (other types, paratext, retracted), citing nothing and
 * cited by nothing, so they change only the counts of what was left out.
 */
export const ROOT: Record<string, string> = {
  Art: 'C142362112', Biology: 'C86803240', Business: 'C144133560', Chemistry: 'C185592680', 'Computer Science': 'C41008148',
  Economics: 'C162324750', Engineering: 'C127413603', 'Environmental Science': 'C39432304', Geography: 'C205649164',
  Geology: 'C127313418', History: 'C95457728', 'Materials Science': 'C192562407', Mathematics: 'C33923547',
  Medicine: 'C71924100', Philosophy: 'C138885662', Physics: 'C121332964', 'Political Science': 'C17744445',
  Psychology: 'C15744967', Sociology: 'C144024400',
};
const ROOT_NAMES = Object.keys(ROOT);

/** Topic field ids (11–36) given to works by their first MAG field: test data, not a crosswalk. */
export const TOPIC_OF: Record<string, number> = {
  Art: 12, Biology: 11, Business: 14, Chemistry: 16, 'Computer Science': 17, Economics: 20, Engineering: 22,
  'Environmental Science': 23, Geography: 33, Geology: 19, History: 12, 'Materials Science': 25, Mathematics: 26,
  Medicine: 27, Philosophy: 12, Physics: 31, 'Political Science': 33, Psychology: 32, Sociology: 33,
};

const url = (id: string) => `https://openalex.org/W${id}`;

export function invertedIndex(abstract: string | null): Record<string, number[]> | null {
  if (abstract === null) return null;
  const inv: Record<string, number[]> = Object.create(null);
  abstract.split(/\s+/).filter(Boolean).forEach((w, p) => (inv[w] ??= []).push(p));
  return inv;
}

/** The works of `records`, in their order. */
export function toOpenAlexWorks(records: any[]): any[] {
  const present = new Set(records.map((r) => r.paper_id));
  const citedBy = new Map<string, string[]>(); // work → records of the input listing it as their citer
  for (const r of records) for (const c of r.inbound_citations) if (present.has(c)) (citedBy.get(c) ?? citedBy.set(c, []).get(c)!).push(r.paper_id);
  return records.map((r, k) => {
    const fields: string[] = r.mag_field_of_study ?? [];
    const concepts = fields.map((f, j) => ({ id: `https://openalex.org/${ROOT[f]}`, wikidata: null, display_name: f, level: 0, score: 0.3 + (((k * 7 + j * 13) % 70) / 100) }));
    if (k % 3 === 0) {
      const other = ROOT_NAMES.find((f) => !fields.includes(f))!;
      concepts.push({ id: `https://openalex.org/${ROOT[other]}`, wikidata: null, display_name: other, level: 0, score: k % 2 ? 0 : 0.2999 });
      concepts.push({ id: 'https://openalex.org/C2777648638', wikidata: null, display_name: 'A level-1 concept', level: 1, score: 0.8 });
    }
    const out = new Set(r.outbound_citations);
    const refs = [...r.outbound_citations, ...(citedBy.get(r.paper_id) ?? []).filter((c) => !out.has(c))];
    const topic = fields.length ? TOPIC_OF[fields[0]] : undefined;
    return {
      id: url(r.paper_id),
      doi: r.doi ? `https://doi.org/${r.doi}` : null,
      title: r.title,
      display_name: r.title,
      publication_year: r.year,
      publication_date: r.year === null ? null : `${r.year}-01-01`,
      type: k % 13 === 5 ? 'preprint' : k % 17 === 3 ? 'review' : 'article',
      authorships: (r.authors ?? []).map((a: any, i: number) => ({ author_position: i === 0 ? 'first' : 'middle', author: { id: null, display_name: [a.first, ...(a.middle ?? []), a.last].filter(Boolean).join(' ') }, institutions: [] })),
      abstract_inverted_index: invertedIndex(r.abstract),
      referenced_works: refs.map(url),
      cited_by_count: new Set(r.inbound_citations).size,
      concepts,
      primary_topic: topic === undefined ? null : { id: `https://openalex.org/T1${topic}00`, display_name: 'a topic', score: 0.9, subfield: { id: `https://openalex.org/subfields/${topic}00`, display_name: 'a subfield' }, field: { id: `https://openalex.org/fields/${topic}`, display_name: 'a field' }, domain: { id: 'https://openalex.org/domains/1', display_name: 'a domain' } },
      is_paratext: false,
      is_retracted: false,
      updated_date: '2020-07-05T00:00:00.000000',
    };
  });
}

/** Works the default options leave out: `n` of other types, paratext or retracted (ids from W9100000000 up). */
export function extraWorks(n: number): any[] {
  const kinds = [{ type: 'book-chapter' }, { type: 'dataset' }, { type: 'paratext', is_paratext: true }, { type: 'article', is_retracted: true }, { type: 'editorial' }];
  return Array.from({ length: n }, (_, i) => ({
    id: url(String(9100000000 + i)), title: `Left out ${i}`, display_name: `Left out ${i}`, publication_year: 2019,
    abstract_inverted_index: invertedIndex('A work that the default options leave out of the corpus.'), referenced_works: [], cited_by_count: 0,
    concepts: [], primary_topic: null, is_paratext: false, is_retracted: false, updated_date: '2020-07-06T00:00:00.000000', ...kinds[i % kinds.length],
  }));
}
