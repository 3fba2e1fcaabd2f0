import { CitebenchError } from '../util/errors.ts';
import type { CorpusStore } from '../corpus/store.ts';
import type { FieldName } from '../corpus/fields.ts';
import { sampleQuerySet, sampleValQueries } from '../sampling/pools.ts';
import type { ExperimentConfig, Setting } from './config.ts';
import type { ValidationShortfall as SplitShortfall } from '../report/results.ts';

/**
 * Query sets of every protocol and split, sampled once. Validation queries are drawn like the test ones from a
 * stream of their own, never one of the test queries (nor an excluded id), so tuning never sees a test query.
 * The paper fixes the test split's size, not the validation split's: a test split that cannot be filled is an
 * error, a validation split takes every eligible article left (a counted shortfall, `shortfalls()`), e.g. a
 * small field whose 200 test queries leave fewer than 200 for MDCR's val split.
 */
export class QuerySplits {
  private readonly memo = new Map<string, Uint32Array>();
  private readonly short = new Map<string, SplitShortfall>();

  constructor(
    private readonly cfg: ExperimentConfig,
    private readonly store: CorpusStore,
    private readonly exclude: Uint32Array,
  ) {}

  /** Inductive queries must cite ≥ 1 (MDCR: 5) articles published before their year (pools.ts), on a stream of their own. */
  get(protocol: 'dataset' | 'field' | 'beir', split: 'test' | 'val', field: FieldName | null, setting: Setting = 'transductive'): Uint32Array {
    if (protocol === 'beir') throw new CitebenchError('a BEIR task brings its own queries (beir-stage.ts): it has no sampled split');
    const inductive = setting === 'inductive';
    const key = `${protocol}/${split}/${field}${inductive ? '/inductive' : ''}`;
    let q = this.memo.get(key);
    if (q) return q;
    const count = protocol === 'dataset' ? (split === 'test' ? this.cfg.protocols.dataset!.queries : this.cfg.validation.queries) : this.cfg.protocols.field!.queries;
    // MDCR draws 5 positives from each field-level query's cited articles: such queries must cite that many.
    const minCited = protocol === 'field' && this.cfg.protocols.mdcr ? this.cfg.protocols.mdcr.positives : 1;
    const opts = { count, seed: this.cfg.seed, queryYear: this.cfg.queryYear, field: field ?? undefined, exclude: this.exclude, minCited, ...(inductive ? { inductive } : {}) };
    const set = split === 'test' ? sampleQuerySet(this.store, { ...opts, split }) : sampleValQueries(this.store, opts, this.get(protocol, 'test', field, setting));
    q = set.queries;
    if (q.length < count) this.short.set(key, { protocol, split: 'val', field, setting, requested: count, sampled: q.length, eligible: set.candidates });
    this.memo.set(key, q);
    return q;
  }

  /** The validation splits drawn so far that hold fewer queries than asked, in the order they were drawn. */
  shortfalls(): SplitShortfall[] {
    return [...this.short.values()];
  }
}
