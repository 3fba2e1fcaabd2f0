#!/usr/bin/env node
// npm's install step for this package (`npm ci` / `npm install` run it): compiles the BM25 search kernel, the
// file mapper that loads BM25 indexes and the TREC run reader (binding.gyp → build/Release/citebench_bm25.node,
// citebench_mapped_file.node, citebench_trec_reader.node) with node-gyp against the installed Node's headers.
// A failed build is not a failed install: search and run reading then run in TypeScript and indexes are read, not
// mapped (same results, slower), and this prints one notice line saying so.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.env.CITEBENCH_BM25_ADDON === 'off') process.exit(0);
// npm hands its bundled node-gyp to install scripts; outside npm, node-gyp must be on PATH.
const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? [process.execPath, [gyp, 'rebuild']] : ['node-gyp', ['rebuild']];
// Build against the headers installed beside this Node (Debian's libnode-dev, or an official tarball's include/)
// unless npm was told where they are: node-gyp would otherwise try to download them.
const prefix = dirname(dirname(process.execPath));
if (!process.env.npm_config_nodedir && existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);
const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
if (r.status === 0) {
  console.log('citebench: compiled the BM25 search kernel, index file mapper and TREC reader (build/Release/)');
} else {
  const lines = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.split('\n').map((l) => l.trim());
  const why = r.error?.message ?? lines.find((l) => /\berror\b/i.test(l) && !/^gyp (ERR!|WARN) (stack|System|command|cwd|node|not ok)/.test(l)) ?? `node-gyp exited with ${r.status}`;
  console.error(`notice: the BM25 search kernel was not compiled (${why}); citebench will search and read runs in TypeScript (same results, slower). To build it later: install g++ and make, then run \`npm run build:kernel\`.`);
}
