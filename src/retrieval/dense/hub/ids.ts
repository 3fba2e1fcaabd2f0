/** Hugging Face hub repo ids and where they are fetched from. */

const DEFAULT_ENDPOINT = 'https://huggingface.co';

/** `ORG/NAME` (one slash, hub-legal characters), not a path like `./x`, `/x` or `a/b/c`. */
export function isHubId(s: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(s) && !s.includes('..');
}

/** Local folder name of a hub repo: `ORG/NAME` → `ORG--NAME`. */
export function hubFolderName(repo: string): string {
  return repo.replace('/', '--');
}

/** The hub's base URL: the given one, else $HF_ENDPOINT, else https://huggingface.co (no trailing slash). */
export function endpointOf(endpoint?: string): string {
  return (endpoint ?? process.env.HF_ENDPOINT ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
}
