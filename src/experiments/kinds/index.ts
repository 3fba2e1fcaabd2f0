/**
 * The model-kind registry: every kind a config may name, one entry each (types.ts says what an entry holds).
 * A new kind is one file beside these (its config type and its exported entry); builtin.ts lists the kind files
 * (generated: `npm run kinds`; test/architecture/kinds.test.ts fails while it is not current), see
 * docs/model-kinds.md. A plug-in or a test may also register one at run time (registerKind).
 */
import type { Reader } from '../config-reader.ts';
import { builtInKinds as builtIn } from './builtin.ts';
import type { BuildContext, KindEntry, ModelConfigBase, Resource } from './types.ts';

type ConfigOf<E> = E extends KindEntry<infer C> ? C : never;
/** Any built-in kind's model config. */
export type ModelConfig = ConfigOf<ReturnType<typeof builtIn>[number]>;
type ModelKind = ModelConfig['kind'];

// Filled on first use, when every entry's module has been evaluated.
let kinds: Map<string, KindEntry<ModelConfigBase>> | undefined;
const registry = (): Map<string, KindEntry<ModelConfigBase>> => (kinds ??= new Map(builtIn().map((e): [string, KindEntry<ModelConfigBase>] => [e.kind, e])));

/** Register a kind at run time (a test's toy kind, a plug-in); a kind already there is an error. */
export function registerKind<C extends ModelConfigBase>(entry: KindEntry<C>): void {
  if (registry().has(entry.kind)) throw new Error(`model kind '${entry.kind}' is registered already`);
  registry().set(entry.kind, entry);
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
export function entryOf(m: ModelConfigBase): KindEntry<ModelConfigBase> {
  const e = registry().get(m.kind);
  if (!e) throw new Error(`no model kind '${m.kind}' is registered`);
  return e;
}

/** Whether a kind's models are beyond the paper (their entry's beyondPaper). */
export function isBeyondPaper(kind: string): boolean {
  return registry().get(kind)?.beyondPaper === true;
}

/**
 * The kind a model without `kind:` has: the kind whose key its node holds (`embeddings: FILE`), else the kind
 * named like the model (`bm25:`), else the fallback kind (a dense encoder named like the model).
 */
function defaultKind(name: string, keys: string[] = []): string {
  const entries = [...registry().values()];
  const e = entries.find((x) => x.impliedBy !== undefined && keys.includes(x.impliedBy)) ?? entries.find((x) => x.impliedByName === name) ?? entries.find((x) => x.fallback);
  if (!e) throw new Error('no model kind is the fallback');
  return e.kind;
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
  // A kind registered at run time has a config of its own shape: the run treats every config through its entry.
  return e.parse(r, p, name, earlier) as ModelConfig;
}

/** Whether a config asks any model for a tuning split. */
export function anyTuned(models: readonly ModelConfigBase[]): boolean {
  return models.some((m) => entryOf(m).tuning?.(m) !== undefined);
}

/** Whether a model's kind needs the prepared resource named `what` (its entry's `needs`). */
export function needs(m: ModelConfigBase, what: string): boolean {
  return entryOf(m).needs?.some((r) => r.name === what) ?? false;
}

/** Whether a kind of the config needs the prepared resource named `what` ('bm25Index', 'encode', …). */
export function anyNeeds(models: readonly ModelConfigBase[], what: string): boolean {
  return models.some((m) => needs(m, what));
}

/** The resources the config's kinds need, each once, in config order. */
export function resourcesOf(models: readonly ModelConfigBase[]): Resource[] {
  const out = new Map<string, Resource>();
  for (const m of models) for (const r of entryOf(m).needs ?? []) if (!out.has(r.name)) out.set(r.name, r);
  return [...out.values()];
}

/** A build context for a store of its own: every resource's fields (the corpus's BM25 index …) left out. */
export function withoutResources(ctx: BuildContext): BuildContext {
  const out = { ...ctx };
  for (const e of registry().values()) for (const r of e.needs ?? []) for (const f of r.fields ?? []) delete out[f];
  return out;
}

/** Prepare what a model's kind needs over the build context's own store (a BEIR task's, an MDCR data file's). */
export async function prepareOnStore(m: ModelConfigBase, ctx: BuildContext): Promise<void> {
  for (const r of entryOf(m).needs ?? []) await r.onStore?.(ctx);
}

/**
 * The kind a model named `name` has by its name alone (`bm25`: an entry's impliedByName), or undefined (then a
 * name is an encoder: the fallback kind).
 */
export function kindNamed(name: string): string | undefined {
  return [...registry().values()].find((e) => e.impliedByName === name)?.kind;
}

/**
 * The models a notebook's `tune: true` adds: each configured model's tuned variant (its entry's tunedVariant),
 * named NAME-tuned, where no model of that name is configured and the model does not tune already.
 */
export function tunedVariants(models: readonly ModelConfigBase[]): ModelConfig[] {
  const names = new Set(models.map((m) => m.name));
  const out: ModelConfig[] = [];
  for (const m of models) {
    const name = `${m.name}-tuned`;
    const v = names.has(name) ? undefined : entryOf(m).tunedVariant?.(m, name);
    if (v) out.push(v as ModelConfig);
  }
  return out;
}

export type { KindEntry, BuildContext, OwnStore, Resource } from './types.ts';
export { DEFAULT_TUNE_GRID } from './bm25.ts';
