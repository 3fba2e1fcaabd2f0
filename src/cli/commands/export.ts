import { parse } from '../args.ts';
import { EXPORT_FORMATS, exportResults, type ExportFormat } from '../../report/export.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench export RESULTS_DIR --format parquet|csv [--out DIR]

The results of \`citebench run\` as tidy tables for pandas, polars and R, one file per table (docs/results.md,
"Export", describes every column): cells (each cell's mean of each measure), per_query (each query's value),
tuning (BM25 validation grids), mdcr_fields and mdcr_types (MDCR per field and per candidate type), models.
Values are the stored doubles, unrounded. Parquet: typed columns, nulls for "no field"; CSV: RFC 4180, UTF-8,
numbers that read back as the same double, an empty field for null. Same results ⇒ same bytes.

options:
  --format F   parquet or csv
  --out DIR    output folder (default: RESULTS_DIR/export)`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { format: { type: 'string' }, out: { type: 'string' } }, usage);
  if (positionals.length !== 1) throw new CitebenchError(`give one results folder\n\n${usage}`);
  const format = values.format as ExportFormat | undefined;
  if (!format || !EXPORT_FORMATS.includes(format)) throw new CitebenchError(`--format must be ${EXPORT_FORMATS.join(' or ')}${format ? `, got '${format}'` : ''}\n\n${usage}`);
  for (const o of exportResults(positionals[0], { format, out: values.out })) console.log(`${o.file}\t${o.rows} rows`);
  return 0;
}
