/**
 * The model-kind registry: every kind a config may name, one entry each (types.ts says what an entry holds).
 * A new kind is a file beside these with its config type and entry, one line in builtIn and one in ModelConfig
 * (docs/model-kinds.md).
 */
import type { Reader } from '../config-reader.ts';
import { bm25, type Bm25ModelConfig } from './bm25.ts';
import { dense, type DenseModelConfig } from './dense.ts';
import { embeddings, type EmbeddingsModelConfig } from './embeddings.ts';
import { navigation, type NavigationModelConfig } from './navigation.ts';
import { profiler, type ProfilerModelConfig } from './profiler.ts';
import { rerank, type RerankModelConfig } from './rerank.ts';
import type { KindEntry, ModelConfigBase } from './types.ts';

export type ModelConfig = Bm25ModelConfig | DenseModelConfig | EmbeddingsModelConfig | NavigationModelConfig | ProfilerModelConfig | RerankModelConfig;
export type ModelKind = ModelConfig['kind'];

/** The built-in kinds, in the order error messages list them. */
const builtIn = (): KindEntry<ModelConfigBase>[] => [bm25, dense, embeddings, navigation, profiler, rerank] as unknown as KindEntry<ModelConfigBase>[];

// Filled on first use: the entries import modules that import this one, so they may not be evaluated yet here.
let kinds: Map<string, KindEntry<ModelConfigBase>> | undefined;
const registry = (): Map<string, KindEntry<ModelConfigBase>> => (kinds ??= new Map(builtIn().map((e) => [e.kind, e])));

/** Register a kind at run time (a test's toy kind, a plug-in); a kind already there is an error. */
export function registerKind<C extends ModelConfigBase>(entry: KindEntry<C>): void {
  if (registry().has(entry.kind)) throw new Error(`model kind '${entry.kind}' is registered already`);
  registry().set(entry.kind, entry as unknown as KindEntry<ModelConfigBase>);
}

/** Remove a kind registered at run time (tests). */
export function unregisterKind(kind: string): void {
  if (builtIn().some((e) => e.kind === kind)) throw new Error(`model kind '${kind}' is built in`);
  registry().delete(kind);
}

export function kindNames(): string[] {
  return [...registry().keys()];
}

/** The entry of a configured model. */
export function entryOf<C extends ModelConfigBase>(m: C): KindEntry<C> {
  const e = registry().get(m.kind);
  if (!e) throw new Error(`no model kind '${m.kind}' is registered`);
  return e as unknown as KindEntry<C>;
}

/** Whether a kind's models are beyond the paper (their entry's beyondPaper). */
export function isBeyondPaper(kind: string): boolean {
  return registry().get(kind)?.beyondPaper === true;
}

/**
 * The kind a model without `kind:` has: the kind whose key its node holds (`embeddings: FILE`), `bm25` for a model
 * named bm25, else a dense encoder named like the model.
 */
export function defaultKind(name: string, keys: string[] = []): string {
  const implied = [...registry().values()].find((e) => e.impliedBy !== undefined && keys.includes(e.impliedBy));
  return implied ? implied.kind : name === 'bm25' ? 'bm25' : 'dense';
}

/** Read the model at ['models', name] with its kind's entry (errors name file, line and key). */
export function parseModel(r: Reader, name: string, earlier: string[]): ModelConfig {
  const p = ['models', name];
  const body = r.raw(p);
  const kind = r.str([...p, 'kind'], defaultKind(name, body && typeof body === 'object' ? Object.keys(body) : []))!;
  const e = registry().get(kind);
  if (!e) {
    const names = kindNames();
    r.fail([...p, 'kind'], `must be ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}, got '${kind}'`);
  }
  return e.parse(r, p, name, earlier) as ModelConfig;
}

/** Whether a config asks any model for a tuning split. */
export function anyTuned(models: ModelConfig[]): boolean {
  return models.some((m) => entryOf(m).tuned?.(m) ?? false);
}

/** Whether a kind of the config needs a prepared thing (the corpus's BM25 index, an encode stage). */
export function anyNeeds(models: ModelConfig[], what: 'bm25Index' | 'encode'): boolean {
  return models.some((m) => entryOf(m).needs?.[what] ?? false);
}

export type { KindEntry, BuildContext, CostEnv, KindCost, ModelConfigBase, RunConfig, Splits } from './types.ts';
export type { Bm25ModelConfig, DenseModelConfig, EmbeddingsModelConfig, NavigationModelConfig, ProfilerModelConfig, RerankModelConfig };
export { DEFAULT_TUNE_GRID } from './bm25.ts';
export { DEFAULT_BETA_GRID } from './profiler.ts';
export type { ScorerPart, CrossEncoderRef } from './composed.ts';
