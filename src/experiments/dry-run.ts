/**
 * `citebench run --dry-run`: the plan of a config and a rough estimate of time and memory per stage, without
 * touching any file (plan.ts estimates; each model kind's entry says what its cells cost and assume).
 */
import { memoryLimit } from '../util/memory.ts';
import { configHash, type ExperimentConfig } from './config.ts';
import { anyNeeds, entryOf } from './kinds/index.ts';
import { corpusBuildForecast, estimate, expectedArticles, RELEASES, formatBytes, formatDuration, groupPath, planGroups, sizeLabel } from './plan.ts';
import { storeArticles } from './slurm.ts';

/** The dry run: the plan and a rough estimate, without touching any file. Memory above `memoryBytes` (default: this machine's) is flagged. */
export function dryRun(cfg: ExperimentConfig, opts: { memoryBytes?: number } = {}): string {
  const groups = planGroups(cfg);
  const lines = [`config ${cfg.name} (hash ${configHash(cfg)}), scale ${cfg.scale}, seed ${cfg.seed}`];
  const syn = cfg.corpus.synthetic;
  lines.push(cfg.corpus.store ? `corpus: store ${cfg.corpus.store}` : `corpus: ${syn!.articles} synthetic articles (seed ${syn!.seed}${syn!.profile ? `, profile ${syn!.profile}` : ''}), prefiltered as in §3`);
  lines.push(`models: ${cfg.models.map((m) => `${m.name} (${m.kind}${entryOf(m).describe(m)})`).join(', ')}`);
  if (cfg.settings) lines.push(`settings: ${cfg.settings.join(', ')}`);
  const d = cfg.protocols.dataset;
  if (d) lines.push(`dataset level: ${d.queries} queries of ${cfg.queryYear}, pools ${d.pools.map(sizeLabel).join('/')} × ${d.repeats} repeats`);
  const f = cfg.protocols.field;
  if (f) lines.push(`field level: ${f.fields.length} fields × ${f.queries} queries, pools of ${sizeLabel(f.pool)} × ≤ ${f.repeats} repeats (one where the field-cited set is not larger)`);
  if (cfg.protocols.mdcr) lines.push(`MDCR: test = the field-level queries, val = ${f!.queries} disjoint queries per field (what is left where a field has fewer); ${cfg.protocols.mdcr.positives} positives + 6 types × ${cfg.protocols.mdcr.perType} negatives`);
  const beir = cfg.protocols.beir;
  if (beir) lines.push(`BEIR task ${beir.name}: ${beir.path} (qrels/${beir.split}.tsv), every BM25 and dense model on the task's own store, one cell each (not in the estimate below)`);
  lines.push(`cells: ${groups.length} pool groups × ${cfg.models.length} models = ${groups.length * cfg.models.length} (top ${cfg.k}; ${cfg.measures.join(', ')})`);
  const articles = storeArticles(cfg);
  lines.push('', 'estimate on a 2-core machine (per-unit costs from docs/benchmarks.md; rough):');
  if (cfg.corpus.store && articles === undefined) lines.push(`  (corpus store ${cfg.corpus.store} not built yet: assuming ${expectedArticles(cfg)} articles, ${RELEASES[cfg.corpus.from ?? 's2orc-v2020'].kept} × scale)`);
  let total = 0;
  const memory = opts.memoryBytes ?? memoryLimit();
  const est = estimate(cfg, groups, articles, memory);
  const w = Math.max(...est.map((e) => e.stage.length));
  for (const e of est) {
    total += e.seconds;
    lines.push(`  ${e.stage.padEnd(w)} ${formatDuration(e.seconds).padStart(9)}   peak ≈ ${formatBytes(e.bytes)}${e.bytes > memory ? `   ⚠ exceeds this machine's ${formatBytes(memory)}` : ''}`);
  }
  lines.push(`  ${'total'.padEnd(w)} ${formatDuration(total).padStart(9)}`);
  const over = est.filter((e) => e.bytes > memory);
  if (over.length) {
    // What bounds each kind of stage that does not fit: the corpus's BM25 index, a sparse Profiler's profiles.
    const hints = [
      ...(cfg.bm25Index !== 'pools' && anyNeeds(cfg.models, 'bm25Index') ? ['`bm25Index: pools` bounds BM25 by the largest pool instead of the store (docs/openalex.md).'] : []),
      "A sparse Profiler's `topTerms` bounds its profiles (docs/benchmarks.md).",
    ];
    lines.push('', `⚠ ${over.length} stage${over.length > 1 ? 's need' : ' needs'} more memory than this machine has (${formatBytes(memory)}): ${over.map((e) => e.stage).join('; ')}. ${hints.join(' ')}`);
  }
  // Disk: what the corpus and index stages write (peak while they run; what stays), and, for a store not built
  // yet, the `citebench corpus build` of the raw release it would come from.
  const build = cfg.corpus.store && articles === undefined ? corpusBuildForecast(cfg.scale, cfg.corpus.from) : undefined;
  const onDisk = [...(build ? [build] : []), ...est].filter((e) => e.disk);
  if (onDisk.length) {
    lines.push('', 'disk (in the work folder; peak while the stage runs / kept after it):');
    for (const e of onDisk) lines.push(`  ${e.stage}: ${formatBytes(e.disk!.peak)} / ${formatBytes(e.disk!.kept)}`);
  }
  if (build) lines.push('', `building the store first (citebench corpus build, ${RELEASES[cfg.corpus.from ?? 's2orc-v2020'].share}; not part of run): ${build.stage}, ${formatDuration(build.seconds)}, peak ≈ ${formatBytes(build.bytes)}${build.bytes > memory ? `   ⚠ exceeds this machine's ${formatBytes(memory)}` : ''}`);
  const assumed = est.filter((e) => e.assumption);
  if (assumed.length) lines.push('', 'assumptions (not measured as such):', ...assumed.map((e) => `  ${e.stage.split(' — ')[0].replace(/^cells /, '').split(' (')[0].split(',')[0]}: ${e.assumption}`));
  lines.push('', 'pool groups:', ...groups.map((g) => `  ${groupPath(g)}  (${g.queries} queries, pool ${g.poolSize})`));
  return lines.join('\n');
}
