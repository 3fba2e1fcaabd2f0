import { parse, num, required } from '../args.ts';
import { buildCorpusStore } from '../../corpus/store-build.ts';
import { PAPER_PREFILTER, type CitationDirection } from '../../corpus/prefilter.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench corpus build --input SHARDS --out STORE [options]

Read S2ORC metadata shards (a *.jsonl / *.jsonl.gz file or a directory of them), validate every record,
apply the paper's prefilter and write a compact corpus store (columnar binary files).
Or read today's S2ORC, the Semantic Scholar Datasets API's bulk datasets: a directory holding papers/,
abstracts/ and citations/ (their gzip'd JSONL shards, as downloaded), joined by corpusid on disk.

options:
  --input PATH              S2ORC v2020 metadata file or directory of shards, or a directory with the bulk
                            datasets papers/, abstracts/, citations/ (required)
  --out DIR                 corpus store directory to (re)write (required)
  --no-prefilter            keep every valid article
  --min-abstract-chars N    prefilter rule 3 (default 30)
  --min-citations N         prefilter rule 4 (default 3)
  --citation-direction D    what rule 4 counts: inbound (default: times cited in the corpus), outbound
                            (references into the corpus), both (in + out), either (max of in, out)
  --citation-scope S        where rule 4 counts: corpus (default: links between input articles; = "in S2ORC"
                            for the full S2ORC) or record (the record's own S2ORC citation lists; for subsets)
  --strict                  fail on the first data problem instead of counting and skipping it
  --allow-truncated         a truncated or corrupt .jsonl.gz shard is read up to the damage and the rest skipped
                            (counted and reported) instead of stopping the build
  --json                    print the summary as JSON`;

export async function run(args: string[]) {
  const { values } = parse(args, {
    input: { type: 'string' },
    out: { type: 'string' },
    'no-prefilter': { type: 'boolean' },
    'min-abstract-chars': { type: 'string' },
    'min-citations': { type: 'string' },
    'citation-direction': { type: 'string' },
    'citation-scope': { type: 'string' },
    strict: { type: 'boolean' },
    'allow-truncated': { type: 'boolean' },
    json: { type: 'boolean' },
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
    strict: values.strict,
    allowTruncated: values['allow-truncated'],
    log: values.json ? undefined : (l) => console.error(l),
  });
  const secs = (performance.now() - t0) / 1000;
  if (values.json) {
    console.log(JSON.stringify({ articles: summary.articles, citations: summary.citations, seconds: secs, validation: summary.validation.toJSON(), prefilter: summary.prefilter }, null, 1));
  } else {
    console.error(summary.validation.format());
    console.log(`wrote ${values.out}: ${summary.articles} articles, ${summary.citations} citations (${secs.toFixed(1)} s)`);
  }
}
