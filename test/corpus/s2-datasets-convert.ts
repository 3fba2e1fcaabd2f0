/**
 * S2ORC v2020 metadata records → the Semantic Scholar Datasets API's bulk form (papers, abstracts, citations),
 * for tests and for the committed fixture (scripts/dev/make-s2-datasets-fixture.ts). Schemas as the API's
 * dataset READMEs and samples give them: papers {corpusid (number), externalids, url, title, authors, venue,
 * year, referencecount, citationcount, influentialcitationcount, isopenaccess, s2fieldsofstudy, …}; abstracts
 * {corpusid, abstract, openaccessinfo}; citations {citingcorpusid, citedcorpusid (strings, cited may be null),
 * isinfluential, contexts, intents}.
 *
 * A v2020 record lists both its references and its citers; the bulk form has one row per (citing, cited) edge:
 * the union of both lists, each edge once (`edges`). `s2-fos-model` entries are added deterministically (every
 * second record repeats its MAG fields under that source; every seventh gets "Education", a category beyond
 * MAG's 19) and every 50th record gets an unresolved reference (citedcorpusid null), so that the reader's
 * handling of each is exercised.
 */
export interface BulkLines {
  papers: string[];
  abstracts: string[];
  citations: string[];
  /** The (citing, cited) edges written, in order. */
  edges: [string, string][];
  /** Records given a category beyond MAG's 19. */
  beyondMag: number;
}

export function toS2Datasets(records: any[]): BulkLines {
  const papers: string[] = [];
  const abstracts: string[] = [];
  const edgeSet = new Set<string>();
  const edges: [string, string][] = [];
  const edge = (a: string, b: string) => {
    const k = `${a}>${b}`;
    if (!edgeSet.has(k)) {
      edgeSet.add(k);
      edges.push([a, b]);
    }
  };
  let beyondMag = 0;
  records.forEach((r, k) => {
    for (const b of r.outbound_citations) edge(r.paper_id, b);
    for (const c of r.inbound_citations) edge(c, r.paper_id);
    const mag: string[] = r.mag_field_of_study ?? [];
    const fos = mag.map((category) => ({ category, source: 'external' }));
    if (k % 2 === 0) for (const category of mag) fos.push({ category, source: 's2-fos-model' });
    if (k % 7 === 3) {
      fos.push({ category: 'Education', source: 's2-fos-model' });
      beyondMag++;
    }
    papers.push(JSON.stringify({
      corpusid: Number(r.paper_id),
      externalids: { ACL: r.acl_id ?? null, DBLP: null, ArXiv: r.arxiv_id ?? null, MAG: r.mag_id ?? null, CorpusId: r.paper_id, PubMed: r.pubmed_id ?? null, DOI: r.doi ?? null, PubMedCentral: r.pmc_id ?? null },
      url: `https://www.semanticscholar.org/paper/${r.paper_id}`,
      title: r.title,
      authors: (r.authors ?? []).map((a: any) => ({ authorId: null, name: [a.first, ...(a.middle ?? []), a.last].filter(Boolean).join(' ') })),
      venue: r.venue ?? '',
      publicationvenueid: null,
      year: r.year,
      referencecount: r.outbound_citations.length,
      citationcount: r.inbound_citations.length,
      influentialcitationcount: 0,
      isopenaccess: false,
      s2fieldsofstudy: fos.length ? fos : null,
      publicationtypes: null,
      publicationdate: null,
      journal: r.journal ? { name: r.journal, pages: null, volume: null } : null,
    }));
    if (r.abstract !== null) {
      abstracts.push(JSON.stringify({
        corpusid: Number(r.paper_id),
        abstract: r.abstract,
        openaccessinfo: { externalids: { MAG: r.mag_id ?? null, DOI: r.doi ?? null, PubMedCentral: r.pmc_id ?? null, PubMed: r.pubmed_id ?? null, ArXiv: r.arxiv_id ?? null, ACL: r.acl_id ?? null }, license: null, url: null, status: null },
      }));
    }
  });
  const citations = edges.map(([a, b]) => JSON.stringify({ citingcorpusid: a, citedcorpusid: b, isinfluential: false, contexts: null, intents: null }));
  records.forEach((r, k) => {
    if (k % 50 === 0) citations.push(JSON.stringify({ citingcorpusid: r.paper_id, citedcorpusid: null, isinfluential: false, contexts: null, intents: null }));
  });
  return { papers, abstracts, citations, edges, beyondMag };
}

/** The v2020 records whose lists are exactly the bulk edges (what the bulk form says about each record). */
export function normalizedRecords(records: any[], edges: [string, string][]): any[] {
  const out = new Map<string, string[]>();
  const inb = new Map<string, string[]>();
  for (const [a, b] of edges) {
    (out.get(a) ?? out.set(a, []).get(a)!).push(b);
    (inb.get(b) ?? inb.set(b, []).get(b)!).push(a);
  }
  return records.map((r) => ({ ...r, outbound_citations: out.get(r.paper_id) ?? [], inbound_citations: inb.get(r.paper_id) ?? [] }));
}
