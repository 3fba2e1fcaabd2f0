import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** ../shared beside the repository (present on development machines and in CI, maybe not on a user's). */
export const SHARED = join(fileURLToPath(new URL('../../', import.meta.url)), '..', 'shared');
export const hasShared = existsSync(join(SHARED, 'README.md'));
export const skipNoShared = hasShared ? false : `../shared is absent (${SHARED}): test needs the shared data`;
export const REPO = fileURLToPath(new URL('../../', import.meta.url));
