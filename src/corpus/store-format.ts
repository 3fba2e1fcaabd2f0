/**
 * On-disk layout of a corpus store: one directory of columnar little-endian binary files plus meta.json.
 * Every per-article column is indexed by the dense corpus index 0..N-1: the kept articles in the store's order,
 * ascending by id (id-key.ts), whatever order the input had.
 *
 *   meta.json        format, version, counts, the source (its name, field scheme and, for OpenAlex, the snapshot's
 *                    date and what was left out), validation and prefilter reports
 *   ids.bin          paper_id strings, UTF-8, concatenated;  ids.off (u32, N+1) byte offsets
 *   idorder.u32      rank of each id in byte-wise order (trec_eval breaks score ties by docno: compare ranks)
 *   idsorted.u32     corpus indices sorted by id bytes (binary search for id → index)
 *   year.u16         publication year (0 = unknown, only possible when the prefilter is off)
 *   fields.u32       field bitmask in the source's field scheme (meta.source.fieldScheme, fields.ts; MAG when absent)
 *   citedby-fields.u32  OR of the field bitmasks of every INPUT record citing the article (either S2ORC list),
 *                    prefiltered out or not: the paper's field-cited sets (§3.2) are over all of S2ORC
 *   input-inbound.u32   inbound citation count over the whole INPUT, as prefilter rule 4 counts citing records
 *                    (its scope: links inside the input, or the record's own inbound list): MDCR's most_cited
 *                    ranks by it, as the paper ranks by S2ORC's counts (§4.1)
 *   out.off.u32 / out.dst.u32   CSR of outbound citations inside the store, targets ascending
 *   in.off.u32  / in.src.u32    CSR of inbound citations inside the store, sources ascending
 *   text.bin         title then abstract of each article, UTF-8;  text.off.f64 (2N+1) byte offsets:
 *                    title i = [off[2i], off[2i+1]), abstract i = [off[2i+1], off[2i+2])
 * Offsets into text.bin are float64 (exact to 2^53 bytes): the paper's 16 M articles are ~20 GB of text.
 * Citation CSR offsets are u32: up to 4.29 billion edges.
 */
export const STORE_FORMAT = 'citebench-corpus-store';
/**
 * 2: citedby-fields.u32 added; 3: input-inbound.u32 added (an older store must be rebuilt); 4: articles in id order
 * whatever the input's order, meta.source added (a version 3 store is still read: its order is its input's).
 */
export const STORE_VERSION = 4;
export const READABLE_VERSIONS: readonly number[] = [3, 4];

export const FILES = {
  meta: 'meta.json',
  ids: 'ids.bin',
  idsOff: 'ids.off',
  idOrder: 'idorder.u32',
  idSorted: 'idsorted.u32',
  year: 'year.u16',
  fields: 'fields.u32',
  citedByFields: 'citedby-fields.u32',
  inputInbound: 'input-inbound.u32',
  outOff: 'out.off.u32',
  outDst: 'out.dst.u32',
  inOff: 'in.off.u32',
  inSrc: 'in.src.u32',
  text: 'text.bin',
  textOff: 'text.off.f64',
} as const;
