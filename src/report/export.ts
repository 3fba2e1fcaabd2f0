/**
 * `citebench export`: the tidy tables of a results folder (tidy.ts) as files for pandas, polars and R, one file
 * per table: Parquet (hyparquet-writer: docs/contributing.md, "Dependencies and why") or CSV (RFC 4180, UTF-8). Both are
 * written atomically and streamed in row groups of ROW_GROUP rows, so a paper-sized per_query table is never
 * held whole; the same results give the same bytes.
 */
import { join } from 'node:path';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import { readResults } from './results.ts';
import { tidyTables, type TidyColumn, type TidyTable, type TidyValue } from './tidy.ts';
import { writeFileAtomicWith } from '../util/atomic.ts';
import { CitebenchError } from '../util/errors.ts';

export type ExportFormat = 'parquet' | 'csv';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['parquet', 'csv'];

/** Rows per Parquet row group (and per CSV write). */
const ROW_GROUP = 100_000;
/** Parquet bytes buffered before they go to the file. */
const FLUSH_BYTES = 1 << 20;

export interface ExportOutput {
  table: string;
  file: string;
  rows: number;
}

/** Writes every tidy table of results folder `dir` into `out` (default: `dir`/export) as `<table>.<format>`. */
export function exportResults(dir: string, opts: { format: ExportFormat; out?: string }): ExportOutput[] {
  if (!EXPORT_FORMATS.includes(opts.format)) throw new CitebenchError(`export format '${opts.format}': use ${EXPORT_FORMATS.join(' or ')}`);
  const out = opts.out ?? join(dir, 'export');
  return tidyTables(dir, readResults(dir)).map((t) => {
    const file = join(out, `${t.name}.${opts.format}`);
    const rows = opts.format === 'parquet' ? writeParquet(file, t) : writeCsv(file, t);
    return { table: t.name, file, rows };
  });
}

/** The table's rows in batches of up to `size`, as columns. */
function* batches(t: TidyTable, size: number): Iterable<TidyValue[][]> {
  let cols: TidyValue[][] = t.columns.map(() => []);
  for (const row of t.rows()) {
    row.forEach((v, i) => cols[i].push(v));
    if (cols[0].length === size) {
      yield cols;
      cols = t.columns.map(() => []);
    }
  }
  if (cols[0].length) yield cols;
}

const PARQUET_TYPE: Record<TidyColumn['type'], Omit<SchemaElement, 'name'>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  int32: { type: 'INT32' },
  double: { type: 'DOUBLE' },
  boolean: { type: 'BOOLEAN' },
};

function writeParquet(file: string, t: TidyTable): number {
  const schema: SchemaElement[] = [
    { name: 'schema', num_children: t.columns.length },
    ...t.columns.map((c) => ({ name: c.name, ...PARQUET_TYPE[c.type], repetition_type: c.nullable ? 'OPTIONAL' as const : 'REQUIRED' as const })),
  ];
  let rows = 0;
  writeFileAtomicWith(file, (write) => {
    // A ByteWriter that hands its bytes to the atomic file every FLUSH_BYTES (hyparquet-writer's fileWriter does
    // the same, but writes in place).
    const w = new ByteWriter();
    const flush = () => {
      write(new Uint8Array(w.buffer, 0, w.index));
      w.index = 0;
    };
    const ensure = w.ensure.bind(w);
    w.ensure = (size: number) => {
      if (w.index > FLUSH_BYTES) flush();
      ensure(size);
    };
    const pw = new ParquetWriter({ writer: w, schema, createdBy: 'citebench export' });
    for (const cols of batches(t, ROW_GROUP)) {
      pw.write({ columnData: t.columns.map((c, i) => ({ name: c.name, data: cols[i] as never })), rowGroupSize: ROW_GROUP });
      rows += cols[0].length;
    }
    pw.finish();
    flush();
  });
  return rows;
}

/** A CSV field: RFC 4180 quoting; numbers in the shortest form that reads back as the same double; null empty. */
export function csvField(v: TidyValue): string {
  if (v === null) return '';
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    return Object.is(v, -0) ? '-0' : String(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function writeCsv(file: string, t: TidyTable): number {
  let rows = 0;
  writeFileAtomicWith(file, (write) => {
    const line = (vals: string[]) => vals.join(',') + '\r\n';
    write(Buffer.from(line(t.columns.map((c) => csvField(c.name))), 'utf8'));
    for (const cols of batches(t, ROW_GROUP)) {
      let s = '';
      for (let r = 0; r < cols[0].length; r++) s += line(cols.map((c) => csvField(c[r])));
      write(Buffer.from(s, 'utf8'));
      rows += cols[0].length;
    }
  });
  return rows;
}
