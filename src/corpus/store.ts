/**
 * Read side of the compact corpus store (layout in store-format.ts). Columns load into typed arrays in
 * seconds; texts stay on disk and are read by position, so a store of millions of articles costs ~30 bytes
 * per article plus 4 per citation in memory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { StoreTexts } from './store-texts.ts';
import { join } from 'node:path';
import type { ArticleText, TextSource } from './article.ts';
import { FILES, READABLE_VERSIONS, STORE_FORMAT, STORE_VERSION } from './store-format.ts';
import { schemeFields, type FieldScheme } from './fields.ts';
import type { SourceInfo } from './build-source.ts';
import { CitebenchError } from '../util/errors.ts';
import { readFileBuffer } from '../util/buffered-file.ts';
import type { PrefilterReport } from './prefilter.ts';
import { IdIndex } from './id-index.ts';

export interface StoreMeta {
  format: string;
  version: number;
  articles: number;
  citations: number;
  input: { records: number; accepted: number };
  prefilter: PrefilterReport | null;
  validation: unknown;
  /** What the corpus was built from (absent in version 3 stores). */
  source?: SourceInfo;
}

/**
 * The field scheme a store folder's meta.json names, without opening the store (a config is resolved against
 * it); undefined when there is no readable meta.json yet (CorpusStore.open reports what is wrong).
 */
export function storeFieldScheme(dir: string): FieldScheme | undefined {
  try {
    const meta = JSON.parse(readFileSync(join(dir, FILES.meta), 'utf8')) as Partial<StoreMeta>;
    return meta.source?.fieldScheme ?? 'mag';
  } catch {
    return undefined;
  }
}

export class CorpusStore implements TextSource {
  readonly size: number;
  /** Publication year per article (0 = unknown). */
  readonly years: Uint16Array;
  /** Field bitmask per article, bit i = field i of the store's field scheme (fields.ts). */
  readonly fields: Uint32Array;
  /** Which fields the bitmasks are over: MAG's 19 (S2ORC, OpenAlex concepts) or OpenAlex Topics' 26. */
  readonly fieldScheme: FieldScheme;
  /**
   * Per article, the OR of the field bitmasks of every input record that cites it, including records the
   * prefilter removed: article i is "field-cited" for field f (§3.2) iff citedByFields[i] & (1 << f).
   */
  readonly citedByFields: Uint32Array;
  /**
   * Per article, how many records of the whole input cite it, counted as prefilter rule 4 counts inbound
   * citations (before the prefilter removed any): the citation count MDCR's most_cited ranks by (§4.1).
   */
  readonly inputInbound: Uint32Array;
  /** Rank of each article's paper_id in byte-wise order — trec_eval's docno tie-break, as an integer. */
  readonly idOrder: Uint32Array;
  // The citation graph loads on first use: retrieval needs texts and ids, not citations.
  private outOff_?: Uint32Array;
  private outDst_?: Uint32Array;
  private inOff_?: Uint32Array;
  private inSrc_?: Uint32Array;
  private readonly idBytes: Buffer;
  private readonly idOff: Uint32Array;
  private readonly idSorted: Uint32Array;
  private readonly texts_: StoreTexts;
  private idHash: IdIndex | undefined;

  private constructor(
    readonly dir: string,
    readonly meta: StoreMeta,
  ) {
    const u32 = (f: string) => readTyped(dir, f, Uint32Array);
    this.size = meta.articles;
    this.fieldScheme = meta.source?.fieldScheme ?? 'mag';
    this.years = readTyped(dir, FILES.year, Uint16Array);
    this.fields = u32(FILES.fields);
    this.citedByFields = u32(FILES.citedByFields);
    this.inputInbound = u32(FILES.inputInbound);
    this.idOrder = u32(FILES.idOrder);
    this.idSorted = u32(FILES.idSorted);
    this.idBytes = readFileSync(join(dir, FILES.ids));
    this.idOff = u32(FILES.idsOff);
    this.texts_ = new StoreTexts(dir);
    if (this.years.length !== this.size || this.citedByFields.length !== this.size || this.inputInbound.length !== this.size || this.idOff.length !== this.size + 1 || this.texts_.size !== this.size) {
      this.texts_.close();
      throw new CitebenchError(`${dir}: corpus store columns disagree with meta.json (${this.size} articles): rebuild it`);
    }
  }

  static open(dir: string): CorpusStore {
    const metaPath = join(dir, FILES.meta);
    if (!existsSync(metaPath)) {
      throw new CitebenchError(`${dir}: not a corpus store (no meta.json). Build one with: citebench corpus build --input SHARDS --out ${dir}`);
    }
    let meta: StoreMeta;
    try {
      meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    } catch (e) {
      throw new CitebenchError(`${metaPath}: unreadable (${(e as Error).message})`);
    }
    if (meta.format !== STORE_FORMAT) throw new CitebenchError(`${metaPath}: format is '${meta.format}', expected '${STORE_FORMAT}'`);
    if (!READABLE_VERSIONS.includes(meta.version)) {
      // No silent fallback for older stores: field-cited sets computed from the store alone would change the
      // field-level pools (and which fields are exhausted) without a word.
      // Nor for version 2: most_cited ranked by in-store counts would draw other MDCR candidates silently.
      const why = meta.version === 1 ? ' (version 1 lacks the cited-by-fields column that field-level pools need)'
        : meta.version === 2 ? " (version 2 lacks the input's inbound citation counts that MDCR's most_cited ranks by)" : '';
      throw new CitebenchError(`${metaPath}: store version ${meta.version}, this citebench reads version ${STORE_VERSION}${why}: rebuild it with citebench corpus build --input SHARDS --out ${dir}`);
    }
    return new CorpusStore(dir, meta);
  }

  close(): void {
    this.texts_.close();
  }

  id(i: number): string {
    return this.idBytes.toString('utf8', this.idOff[i], this.idOff[i + 1]);
  }

  /**
   * Corpus index of a paper_id, or -1. The first call builds a hash index of all ids (about a second per
   * 2 M articles); a single lookup can use indexOfSorted() instead, a binary search over the byte-sorted ids.
   */
  indexOf(id: string): number {
    if (!this.idHash) {
      this.idHash = new IdIndex(this.size);
      for (let i = 0; i < this.size; i++) this.idHash.add(this.id(i), i);
    }
    return this.idHash.get(id);
  }

  indexOfSorted(id: string): number {
    const key = Buffer.from(id, 'utf8');
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const i = this.idSorted[mid];
      const c = Buffer.compare(this.idBytes.subarray(this.idOff[i], this.idOff[i + 1]), key);
      if (c === 0) return i;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The names of article i's fields in the store's scheme. */
  fieldsOf(i: number): string[] {
    const names = schemeFields(this.fieldScheme);
    return names.filter((_, b) => this.fields[i] & (1 << b));
  }

  /** CSR of outbound citations inside the store: article i cites outTargets[outOffsets[i]..outOffsets[i+1]). */
  get outOffsets(): Uint32Array {
    return (this.outOff_ ??= this.column(FILES.outOff, this.size + 1));
  }

  get outTargets(): Uint32Array {
    return (this.outDst_ ??= readTyped(this.dir, FILES.outDst, Uint32Array));
  }

  /** CSR of inbound citations: article i is cited by inSources[inOffsets[i]..inOffsets[i+1]). */
  get inOffsets(): Uint32Array {
    return (this.inOff_ ??= this.column(FILES.inOff, this.size + 1));
  }

  get inSources(): Uint32Array {
    return (this.inSrc_ ??= readTyped(this.dir, FILES.inSrc, Uint32Array));
  }

  private column(name: string, length: number): Uint32Array {
    const a = readTyped(this.dir, name, Uint32Array);
    if (a.length !== length) throw new CitebenchError(`${this.dir}: ${name} has ${a.length} entries, expected ${length}: rebuild the store`);
    return a;
  }

  outbound(i: number): Uint32Array {
    return this.outTargets.subarray(this.outOffsets[i], this.outOffsets[i + 1]);
  }

  inbound(i: number): Uint32Array {
    return this.inSources.subarray(this.inOffsets[i], this.inOffsets[i + 1]);
  }

  text(i: number): ArticleText {
    return this.texts_.text(i);
  }

  /** Sequential scan of [from, to) reading text.bin in 8 MiB blocks. */
  texts(from = 0, to = this.size): Generator<ArticleText & { index: number }> {
    return this.texts_.texts(from, to);
  }
}

function readTyped<T extends Uint16Array | Uint32Array | Float64Array>(
  dir: string,
  name: string,
  ctor: { new (b: ArrayBuffer, off: number, len: number): T; new (n: number): T; BYTES_PER_ELEMENT: number },
): T {
  const path = join(dir, name);
  if (!existsSync(path)) throw new CitebenchError(`${dir}: corpus store is missing ${name}: rebuild it`);
  const b = readFileBuffer(path) as ArrayBuffer;
  if (b.byteLength % ctor.BYTES_PER_ELEMENT) throw new CitebenchError(`${path}: size ${b.byteLength} is not a multiple of ${ctor.BYTES_PER_ELEMENT}`);
  return new ctor(b, 0, b.byteLength / ctor.BYTES_PER_ELEMENT);
}
