/**
 * Resolves the citation id lists of S2ORC records to corpus indices: a streaming pass over the shards that
 * emits (citing, cited) index pairs from both the outbound and the inbound lists. Ids outside the corpus are
 * counted (normal for a subset of S2ORC; an error under --strict), self-citations counted and ignored.
 */
import type { IdIndex } from './id-index.ts';
import { readArticles } from './s2orc-reader.ts';
import { ValidationReport } from './validation.ts';
import { InputError } from '../util/errors.ts';
import { Progress } from '../util/progress.ts';

export async function resolveCitations(
  input: string,
  ids: IdIndex,
  report: ValidationReport,
  onEdge: (citing: number, cited: number) => void,
  progress?: { total: number; enabled?: boolean },
): Promise<void> {
  const seen = new Uint8Array(ids.size);
  let unknown = 0;
  let selfCites = 0;
  let example: { file: string; line: number; field: string; message: string } | undefined;
  // Record-level problems were reported by the first pass; this pass must not count them twice.
  const silent = new ValidationReport(false, 0);
  const p = new Progress({ label: 'citations', unit: 'records', total: progress?.total, enabled: progress?.enabled });
  for await (const a of readArticles(input, { report: silent })) {
    p.tick();
    const i = ids.get(a.id);
    if (i < 0 || seen[i]) continue; // a duplicate: the first record with this id was the one kept
    seen[i] = 1;
    for (let d = 0; d < 2; d++) {
      const outbound = d === 0;
      for (const cid of outbound ? a.outbound : a.inbound) {
        const j = ids.get(cid);
        if (j < 0) {
          const field = outbound ? 'outbound_citations' : 'inbound_citations';
          if (report.strict) {
            throw new InputError(a.file, a.line, field, `citation to ${cid}, which is not in the corpus (without --strict such citations are counted and ignored)`);
          }
          unknown++;
          example ??= { file: a.file, line: a.line, field, message: `citation to ${cid}, which is not in the corpus` };
        } else if (j === i) {
          selfCites++;
        } else if (outbound) {
          onEdge(i, j);
        } else {
          onEdge(j, i);
        }
      }
    }
  }
  p.finish();
  report.addMany('unknown-citation', unknown, example);
  report.addMany('self-citation', selfCites);
}
