import { formatLocation, InputError } from '../util/errors.ts';

/** The kinds of problem the S2ORC reader can meet, each counted separately in the report. */
export type ProblemKind =
  | 'corrupt-file' // unreadable/truncated gzip, I/O error: the rest of that file is skipped
  | 'invalid-utf8'
  | 'invalid-json'
  | 'not-an-object'
  | 'missing-field'
  | 'bad-type'
  | 'empty-id'
  | 'duplicate-id'
  | 'unknown-field-of-study'
  | 'bad-citation-id'
  | 'unknown-citation' // a citation id that is not an article of the corpus (normal for subsets: counted only)
  | 'self-citation'
  // Semantic Scholar bulk datasets (s2-datasets.ts):
  | 'unresolved-citation' // a citations row with a null corpusid (a reference matched to no paper)
  | 'unmatched-abstract' // an abstract whose corpusid is not among the papers
  | 'field-beyond-mag' // s2fieldsofstudy categories outside MAG's 19, left out
  // OpenAlex works (openalex.ts):
  | 'bad-id' // a work id that is not OpenAlex's (W and 1–13 digits)
  | 'excluded-type' // a work type the build was told to leave out (--types)
  | 'excluded-paratext' // is_paratext works, left out unless --keep-paratext
  | 'excluded-retracted' // is_retracted works, left out unless --keep-retracted
  | 'abstract-gap' // positions missing from an abstract's inverted index (the words are joined in position order)
  | 'abstract-duplicate-position' // several words at one position of an inverted index (all kept, in key order)
  | 'manifest-file-missing' // a file the snapshot's manifest lists is not in the input
  | 'manifest-count-mismatch'; // a file holds another number of lines than the manifest's record_count

/** Kinds that drop the whole record (the others drop a value or are informational). */
const RECORD_DROPPING: ReadonlySet<ProblemKind> = new Set([
  'invalid-utf8', 'invalid-json', 'not-an-object', 'missing-field', 'bad-type', 'empty-id', 'duplicate-id', 'bad-id',
]);

/** Kinds that leave records out because an option says so (counted, never a problem). */
const EXCLUDED_BY_OPTION: ReadonlySet<ProblemKind> = new Set(['excluded-type', 'excluded-paratext', 'excluded-retracted']);

/** Informational kinds never make `--strict` fail: they describe the data, not an error in it. */
const INFORMATIONAL: ReadonlySet<ProblemKind> = new Set([
  'unknown-citation', 'self-citation', 'unresolved-citation', 'unmatched-abstract', 'field-beyond-mag',
  'excluded-type', 'excluded-paratext', 'excluded-retracted', 'abstract-gap', 'abstract-duplicate-position', 'manifest-file-missing',
]);

export interface ProblemExample {
  file: string;
  line?: number;
  field?: string;
  message: string;
}

/**
 * Counts every problem by kind and keeps the first few examples of each with file, line and field.
 * In strict mode the first non-informational problem throws an InputError instead.
 */
export class ValidationReport {
  readonly counts = new Map<ProblemKind, number>();
  readonly examples = new Map<ProblemKind, ProblemExample[]>();
  recordsRead = 0;
  recordsAccepted = 0;

  constructor(
    readonly strict = false,
    readonly maxExamples = 5,
  ) {}

  add(kind: ProblemKind, file: string, line: number | undefined, field: string | undefined, message: string): void {
    if (this.strict && !INFORMATIONAL.has(kind)) throw new InputError(file, line, field, message);
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    let ex = this.examples.get(kind);
    if (!ex) this.examples.set(kind, (ex = []));
    if (ex.length < this.maxExamples) ex.push({ file, line, field, message });
  }

  /** Add n occurrences at once (for bulk-counted informational kinds), keeping one example. */
  addMany(kind: ProblemKind, n: number, example?: ProblemExample): void {
    if (n === 0) return;
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + n);
    let ex = this.examples.get(kind);
    if (!ex) this.examples.set(kind, (ex = []));
    if (example && ex.length < this.maxExamples) ex.push(example);
  }

  /**
   * Add what `other` counted as if its add() calls had come after this report's (a unit read by a worker
   * thread, corpus/build-read.ts): counts summed, its examples after these up to the limit.
   */
  absorb(other: ValidationReport): void {
    this.recordsRead += other.recordsRead;
    this.recordsAccepted += other.recordsAccepted;
    for (const [k, n] of other.counts) this.counts.set(k, (this.counts.get(k) ?? 0) + n);
    for (const [k, list] of other.examples) {
      let ex = this.examples.get(k);
      if (!ex) this.examples.set(k, (ex = []));
      for (const e of list) if (ex.length < this.maxExamples) ex.push(e);
    }
  }

  count(kind: ProblemKind): number {
    return this.counts.get(kind) ?? 0;
  }

  get problemCount(): number {
    let n = 0;
    for (const [k, v] of this.counts) if (!INFORMATIONAL.has(k)) n += v;
    return n;
  }

  format(): string {
    const lines = [`records read: ${this.recordsRead}, accepted: ${this.recordsAccepted}`];
    const kinds = [...this.counts.keys()].sort();
    if (kinds.length === 0) lines.push('no problems found');
    for (const k of kinds) {
      const note = RECORD_DROPPING.has(k) ? ' (records skipped)' : EXCLUDED_BY_OPTION.has(k) ? ' (records left out by option)' : INFORMATIONAL.has(k) ? ' (informational)' : '';
      lines.push(`${k}: ${this.counts.get(k)}${note}`);
      for (const e of this.examples.get(k) ?? []) lines.push(`    ${formatLocation(e.file, e.line, e.field)}${e.message}`);
    }
    return lines.join('\n');
  }

  /** A report as toJSON() wrote it (a resumed build carries on counting). */
  static fromJSON(json: ReturnType<ValidationReport['toJSON']>, strict = false, maxExamples = 5): ValidationReport {
    const r = new ValidationReport(strict, maxExamples);
    r.recordsRead = json.recordsRead;
    r.recordsAccepted = json.recordsAccepted;
    for (const [k, v] of Object.entries(json.problems)) r.counts.set(k as ProblemKind, v as number);
    for (const [k, v] of Object.entries(json.examples)) r.examples.set(k as ProblemKind, (v as ProblemExample[]).map((e) => ({ ...e })));
    return r;
  }

  toJSON() {
    return {
      recordsRead: this.recordsRead,
      recordsAccepted: this.recordsAccepted,
      problems: Object.fromEntries([...this.counts.keys()].sort().map((k) => [k, this.counts.get(k)])),
      examples: Object.fromEntries([...this.examples.entries()].sort()),
    };
  }
}
