import { parse, num, required } from '../args.ts';
import { buildCorpusStore } from '../../corpus/store-build.ts';
import { INPUT_FORMATS, type InputFormat } from '../../corpus/build-source.ts';
import { OPENALEX_DEFAULTS, OPENALEX_DEFAULT_TYPES, type OpenAlexOptions } from '../../corpus/openalex.ts';
import { PAPER_PREFILTER, type CitationDirection } from '../../corpus/prefilter.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench corpus build --input PATH --out STORE [options]

Read a corpus, validate every record, apply the paper's prefilter and write a compact corpus store (columnar
binary files), its articles in id order whatever the order of the input. The input is one of:
  S2ORC v2020 metadata shards (a *.jsonl / *.jsonl.gz file or a directory of them);
  today's S2ORC, the Semantic Scholar Datasets API's bulk datasets: a directory holding papers/, abstracts/ and
    citations/ (their gzip'd JSONL shards, as downloaded), joined by corpusid on disk;
  OpenAlex works: the snapshot's works folder (updated_date=…/part_*.gz and its manifest), some of its
    partitions, or JSON Lines files of works from the API (gzip'd or plain) — see docs/openalex.md.
A killed build resumes where it stopped: run the same command again.

options:
  --input PATH              the corpus (required)
  --out DIR                 corpus store directory to (re)write (required)
  --format F                auto (default: told by the layout or the first record), v2020, bulk or openalex
  --no-prefilter            keep every valid article
  --min-abstract-chars N    prefilter rule 3 (default 30)
  --min-citations N         prefilter rule 4 (default 3)
  --citation-direction D    what rule 4 counts: inbound (default: times cited in the corpus), outbound
                            (references into the corpus), both (in + out), either (max of in, out)
  --citation-scope S        where rule 4 counts: corpus (default: links between input articles; = "in S2ORC"
                            for the full S2ORC) or record (the record's own citation lists — for OpenAlex its
                            cited_by_count; for subsets). MDCR's most_cited ranks by the same counts.
  --strict                  fail on the first data problem instead of counting and skipping it
  --allow-truncated         a truncated or corrupt .gz file is read up to the damage and the rest skipped
                            (counted and reported) instead of stopping the build
  --threads N               worker threads reading the input files (default: one per core, at most 8; 1 reads
                            on the main thread); the store does not depend on it
  --json                    print the summary as JSON

OpenAlex works only:
  --fields S                concepts (default): MAG's 19 fields, from the level-0 concepts; topics: the 26
                            fields of each work's primary topic (another classification than the paper's)
  --concept-threshold X     lowest score of a level-0 concept that makes it a field (default ${OPENALEX_DEFAULTS.conceptThreshold}, OpenAlex's
                            own assignment threshold: ancestors of assigned concepts come with lower scores)
  --types T,T,…             work types kept (default ${OPENALEX_DEFAULT_TYPES.join(',')}; 'all' keeps every type)
  --keep-paratext           keep works flagged is_paratext (covers, tables of contents; left out by default)
  --keep-retracted          keep works flagged is_retracted (left out by default)`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    input: { type: 'string' },
    out: { type: 'string' },
    format: { type: 'string' },
    'no-prefilter': { type: 'boolean' },
    'min-abstract-chars': { type: 'string' },
    'min-citations': { type: 'string' },
    'citation-direction': { type: 'string' },
    'citation-scope': { type: 'string' },
    strict: { type: 'boolean' },
    'allow-truncated': { type: 'boolean' },
    json: { type: 'boolean' },
    threads: { type: 'string' },
    fields: { type: 'string' },
    'concept-threshold': { type: 'string' },
    types: { type: 'string' },
    'keep-paratext': { type: 'boolean' },
    'keep-retracted': { type: 'boolean' },
  }, usage);
  const dir = (values['citation-direction'] ?? 'inbound') as CitationDirection;
  if (!['inbound', 'outbound', 'both', 'either'].includes(dir)) throw new CitebenchError(`--citation-direction must be inbound, outbound, both or either, got '${dir}'`);
  const scope = (values['citation-scope'] ?? 'corpus') as 'corpus' | 'record';
  if (scope !== 'corpus' && scope !== 'record') throw new CitebenchError(`--citation-scope must be corpus or record, got '${scope}'`);
  const prefilter = values['no-prefilter']
    ? null
    : {
        ...PAPER_PREFILTER,
        minAbstractChars: num('min-abstract-chars', values['min-abstract-chars'], PAPER_PREFILTER.minAbstractChars),
        minCitations: num('min-citations', values['min-citations'], PAPER_PREFILTER.minCitations),
        citationDirection: dir,
        citationScope: scope,
      };
  const t0 = performance.now();
  const summary = await buildCorpusStore({
    input: required('input', values.input),
    out: required('out', values.out),
    prefilter,
    format: inputFormat(values.format),
    openalex: openAlexOptions(values),
    strict: values.strict,
    allowTruncated: values['allow-truncated'],
    threads: values.threads === undefined ? undefined : num('threads', values.threads),
    log: values.json ? undefined : (l) => console.error(l),
  });
  const secs = (performance.now() - t0) / 1000;
  if (values.json) {
    console.log(JSON.stringify({ articles: summary.articles, citations: summary.citations, seconds: secs, source: summary.source, validation: summary.validation.toJSON(), prefilter: summary.prefilter }, null, 1));
  } else {
    console.error(summary.validation.format());
    console.log(`wrote ${values.out}: ${summary.articles} articles, ${summary.citations} citations (${secs.toFixed(1)} s)`);
  }
}

export function inputFormat(v: string | undefined): InputFormat | 'auto' {
  if (v === undefined || v === 'auto') return 'auto';
  if (!INPUT_FORMATS.includes(v as InputFormat)) throw new CitebenchError(`--format must be auto, ${INPUT_FORMATS.join(', ')}; got '${v}'`);
  return v as InputFormat;
}

/** The OpenAlex options given (only those: the build refuses them for other inputs). */
export function openAlexOptions(values: { fields?: string; 'concept-threshold'?: string; types?: string; 'keep-paratext'?: boolean; 'keep-retracted'?: boolean }): Partial<OpenAlexOptions> {
  const o: Partial<OpenAlexOptions> = {};
  if (values.fields !== undefined) {
    if (values.fields !== 'concepts' && values.fields !== 'topics') throw new CitebenchError(`--fields must be concepts or topics, got '${values.fields}'`);
    o.fields = values.fields === 'topics' ? 'topics' : 'mag';
  }
  if (values['concept-threshold'] !== undefined) o.conceptThreshold = num('concept-threshold', values['concept-threshold']);
  if (values.types !== undefined) {
    const types = values.types.split(',').map((t) => t.trim()).filter(Boolean);
    if (types.length === 0) throw new CitebenchError(`--types needs at least one work type, or 'all'`);
    o.types = types.length === 1 && types[0] === 'all' ? 'all' : types;
  }
  if (values['keep-paratext']) o.keepParatext = true;
  if (values['keep-retracted']) o.keepRetracted = true;
  return o;
}
