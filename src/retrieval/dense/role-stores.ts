/**
 * The embedding stores of a model: one store (its folder) when the query and document prompts are the same, as
 * for every paper model; else one per role, `<folder>/query/` and `<folder>/document/`, each keyed by the role
 * and its prompt (ResolvedModel.roleFingerprint) and recording both in its manifest. A query vector then never
 * serves as a document vector: a store refuses vectors of another key (store.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { TextSource } from '../../corpus/article.ts';
import { CitebenchError } from '../../util/errors.ts';
import { identity } from '../../util/identity.ts';
import type { Encoder } from './encoder.ts';
import type { ResolvedModel } from './models.ts';
import type { Role } from './prompts.ts';
import { mergeSorted } from '../../util/sorted.ts';
import { EmbeddingStore, type EncodeOptions, type StoredType } from './store.ts';

export interface RoleStores {
  query: EmbeddingStore;
  document: EmbeddingStore;
}

export interface StoreSettings {
  corpusSize: number;
  corpusKey?: string;
  /** Given: an existing store of another dtype or chunk size is an error; absent: an existing store's, else float32 and 4,096. */
  dtype?: StoredType;
  chunkSize?: number;
}


/**
 * The one name of a vector store's folder: <root>/<label>-<12 hex digits of what its vectors are>: the model's
 * fingerprint (an import: its file's SHA-256), combined with the corpus's identity where the root holds stores
 * of several corpora (a run's work folder holds one corpus; `mdcr score --cache` any data file).
 */
export function vectorStoreDir(root: string, label: string, vectors: string, corpus?: string): string {
  return join(root, `${label}-${(corpus === undefined ? vectors : identity({ corpus, vectors })).slice(0, 12)}`);
}

/**
 * The folders beside a vector store folder not yet made that vectorStoreDir named for the same label with
 * other vectors (another model fingerprint: the weights, tokenizer or settings changed, or an older citebench
 * fingerprinted them): never reused, and worth a line saying so.
 */
export function supersededStores(dir: string): string[] {
  if (existsSync(dir)) return [];
  const m = /^(.*)-[0-9a-f]{12}$/.exec(basename(dir));
  const root = dirname(dir);
  if (!m || !existsSync(root)) return [];
  return readdirSync(root).filter((n) => n !== basename(dir) && n.startsWith(`${m[1]}-`) && /^[0-9a-f]{12}$/.test(n.slice(m[1].length + 1))).sort().map((n) => join(root, n));
}

/** Whether the stores under `dir` hold `model`'s vectors (by their manifests' fingerprints): a folder an older naming made, reused. */
export function holdsModel(dir: string, model: Pick<ResolvedModel, 'roleFingerprint'>): boolean {
  const at = (role: Role) => join(roleStoreDir(dir, model, role), 'manifest.json');
  return (['document', 'query'] as const).every((role) => existsSync(at(role)) && EmbeddingStore.open(roleStoreDir(dir, model, role)).manifest.fingerprint === model.roleFingerprint[role]);
}

/** The folder of one role's store under a model's store folder (the folder itself for a one-store model). */
function roleStoreDir(dir: string, model: Pick<ResolvedModel, 'roleFingerprint'>, role: Role): string {
  return model.roleFingerprint.query === model.roleFingerprint.document ? dir : join(dir, role);
}

/** Open (creating when absent) the stores of `model` under `dir`. */
export function openModelStores(dir: string, model: ResolvedModel, s: StoreSettings): RoleStores {
  const open = (role: Role) => {
    const at = roleStoreDir(dir, model, role);
    const existing = existsSync(join(at, 'manifest.json')) ? EmbeddingStore.open(at).manifest : undefined;
    const split = at !== dir;
    return EmbeddingStore.openOrCreate(at, {
      model: model.name,
      fingerprint: model.roleFingerprint[role],
      dim: model.dim,
      dtype: s.dtype ?? existing?.dtype ?? 'float32',
      kind: model.pooling === 'aspire' ? 'multi' : 'single',
      chunkSize: s.chunkSize ?? existing?.chunkSize ?? 4096,
      corpusSize: s.corpusSize,
      ...(s.corpusKey ? { corpusKey: s.corpusKey } : {}),
      distance: model.distance,
      ...(split ? { role, prompt: model.prompts[role] } : {}),
    });
  };
  const document = open('document');
  return { query: roleStoreDir(dir, model, 'query') === document.dir ? document : open('query'), document };
}

/** Existing stores under `dir` (for a search without a model): the folder's own, or its query/ and document/. */
export function openExistingStores(dir: string): RoleStores {
  if (existsSync(join(dir, 'manifest.json'))) {
    const one = EmbeddingStore.open(dir);
    return { query: one, document: one };
  }
  if (existsSync(join(dir, 'document', 'manifest.json')) && existsSync(join(dir, 'query', 'manifest.json'))) {
    const query = EmbeddingStore.open(join(dir, 'query'));
    const document = EmbeddingStore.open(join(dir, 'document'));
    if (query.manifest.role !== 'query' || document.manifest.role !== 'document')
      throw new CitebenchError(`${dir}: query/ and document/ must hold the query and document stores of one model (their manifests' role)`);
    return { query, document };
  }
  throw new CitebenchError(`${dir}: no embedding store here (manifest.json, or query/ and document/ for a model with two prompts); run 'citebench encode' first`);
}

/**
 * Encode what the stores lack: `queries` as queries, `pool` as documents (sorted, distinct corpus indices). A one-store
 * model encodes their union in one pass, chunk by chunk, as it always has (the same chunk bytes whichever
 * process or shard writes them). Returns how many articles were encoded now.
 */
export async function encodeRoles(stores: RoleStores, encoder: Encoder, texts: TextSource, queries: Uint32Array, pool: Uint32Array, opts: EncodeOptions = {}): Promise<number> {
  if (stores.query === stores.document) return stores.document.encodeMissing(encoder.forRole('document'), texts, mergeSorted(queries, pool), opts);
  const q = queries.length ? await stores.query.encodeMissing(encoder.forRole('query'), texts, queries, opts) : 0;
  const d = pool.length ? await stores.document.encodeMissing(encoder.forRole('document'), texts, pool, opts) : 0;
  return q + d;
}
