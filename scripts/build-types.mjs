#!/usr/bin/env node
// Part of npm's install step (after build-cli.mjs): generates lib/citebench.d.ts, the notebooks' types
// (scripts/notebook-types.ts, through tsx; the file is git-ignored, like dist/). TypeScript is a dev dependency:
// where it is absent (an install without dev dependencies) the file is not made and only tslab's type checks
// and completion in the notebooks go without it, so a failure here is a notice, not a failed install.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/notebook-types.ts'], { cwd: root, encoding: 'utf8' });
if (r.status === 0) console.log(`citebench: ${r.stdout.trim().replace(/^wrote /, 'generated ')}`);
else console.error(`notice: lib/citebench.d.ts (the notebooks' types) was not generated (${(r.stderr || r.error?.message || '').trim().split('\n').pop()}); run npm run types once TypeScript is installed.`);
