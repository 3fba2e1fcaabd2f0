/**
 * Query and document roles. A query article is encoded as sentence-transformers' `encode_query` encodes it and
 * pool / candidate articles as `encode_document` does: with the role's prompt in front of the text. Which prompt
 * that is, in this order:
 * 1. an override (a config's `prompts: { query, document }`, the `--query-prompt` / `--document-prompt` flags);
 * 1b. a registry entry's preset (registry.ts: the citation instruction of the Qwen-style embedders);
 * 2. the folder's config_sentence_transformers.json, read as sentence-transformers (5.x and 6.x) reads it: its
 *    prompts start as `{query: "", document: ""}` and the folder's entries replace them, so encode_query takes
 *    `prompts.query` and encode_document `prompts.document`, both possibly empty — `default_prompt_name` and the
 *    `passage` / `corpus` fallback of encode_document never apply through these two functions;
 * 3. for a folder that declares neither, the published prompts of a few well-known models (KNOWN_PROMPTS, by
 *    hub repo), each with its source.
 * A model whose two prompts differ keeps a vector store per role (role-stores.ts).
 */

export type Role = 'query' | 'document';
export interface RolePrompts {
  query: string;
  document: string;
}

export interface KnownPrompts extends RolePrompts {
  /** Hub repos (ORG/NAME) these prompts belong to. */
  repos: string[];
  /** Where the prompts are published. */
  source: string;
}

/** Models whose folders declare no prompts but whose authors publish them (docs/dense.md lists them). */
const KNOWN_PROMPTS: readonly KnownPrompts[] = [
  {
    repos: ['intfloat/e5-small-v2', 'intfloat/e5-base-v2', 'intfloat/e5-large-v2', 'intfloat/e5-small', 'intfloat/e5-base', 'intfloat/e5-large'],
    query: 'query: ',
    document: 'passage: ',
    source: 'model cards of intfloat/e5-*: "Each input text should start with \\"query: \\" or \\"passage: \\""',
  },
  {
    repos: ['intfloat/multilingual-e5-small', 'intfloat/multilingual-e5-base', 'intfloat/multilingual-e5-large'],
    query: 'query: ',
    document: 'passage: ',
    source: 'model cards of intfloat/multilingual-e5-*: "Each input text should start with \\"query: \\" or \\"passage: \\", even for non-English texts"',
  },
  {
    repos: ['nomic-ai/modernbert-embed-base'],
    query: 'search_query: ',
    document: 'search_document: ',
    source: 'model card of nomic-ai/modernbert-embed-base (task prefixes search_query / search_document)',
  },
  {
    repos: ['BAAI/bge-small-en-v1.5', 'BAAI/bge-base-en-v1.5', 'BAAI/bge-large-en-v1.5'],
    query: 'Represent this sentence for searching relevant passages: ',
    document: '',
    source: 'model cards of BAAI/bge-*-en-v1.5: the query instruction for short-query-to-passage retrieval; passages get none',
  },
];

/** The published prompts of a hub repo (case-insensitive, as the hub resolves names), if it has an entry. */
function knownPrompts(repo: string | undefined): KnownPrompts | undefined {
  if (!repo) return undefined;
  const r = repo.toLowerCase();
  return KNOWN_PROMPTS.find((k) => k.repos.some((x) => x.toLowerCase() === r));
}

/** Where the prompts of a model came from (recorded in results.json and shown by the CLI). */
export type PromptSource = 'none' | 'folder' | 'known' | 'registry' | 'override';

/**
 * The prompts of each role: overrides (undefined = not given) over the folder's (sentence-transformers'
 * encode_query / encode_document rule) over the known table entry of `repo` when the folder declares neither.
 */
export function rolePrompts(
  folder: Record<string, string> | undefined,
  repo: string | undefined,
  overrides: Partial<RolePrompts> = {},
  preset?: RolePrompts,
): { prompts: RolePrompts; source: PromptSource; known?: KnownPrompts } {
  const declared = folder !== undefined && (!!folder.query || !!folder.document);
  const known = declared || preset ? undefined : knownPrompts(repo);
  const base: RolePrompts = preset ?? (declared ? { query: folder!.query ?? '', document: folder!.document ?? '' } : known ? { query: known.query, document: known.document } : { query: '', document: '' });
  const prompts: RolePrompts = { query: overrides.query ?? base.query, document: overrides.document ?? base.document };
  const source: PromptSource =
    overrides.query !== undefined || overrides.document !== undefined ? 'override' : preset ? 'registry' : declared ? 'folder' : known ? 'known' : 'none';
  return { prompts, source, ...(known && source === 'known' ? { known } : {}) };
}

/** A model with one prompt for both roles encodes each article once, into one store. */
export function symmetric(p: RolePrompts): boolean {
  return p.query === p.document;
}
