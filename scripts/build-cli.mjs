#!/usr/bin/env node
// Part of npm's install step (after build-kernel.mjs): compiles src/cli.ts and everything it imports into plain
// JavaScript in dist/ with esbuild (tsx's own compiler, already installed), so that bin/citebench.js can start
// the file-processing commands (LIGHT_COMMANDS there: `eval` above all) without registering tsx — tsx's loader
// thread costs ≈ 0.3 s and ≈ 36 MB on every start. dist/inputs.json lists the sources it was built from: the
// binary uses dist only while none of them is newer than the build, and runs the sources through tsx otherwise.
// Every command runs from dist, and so do their worker threads and child processes: each module that
// src/util/ts-worker.ts starts (found below by its `new URL('./x.ts', import.meta.url)`) is an entry point of its
// own, dist/worker-<path under src, '/' as '.'>.js (in dist's top folder with every chunk, where the
// import.meta.url rewriting below expects them), which ts-worker.ts picks when it runs from dist. The tests start the
// commands the same way (test/helpers/cli.ts), about a second of CPU less per process than through tsx.
// A failed build is not a failed install (the binary then always runs the sources).
import { mkdirSync, readdirSync, readFileSync, rmSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * `import.meta.url` in a source file means that file, in dist as in the sources: its worker modules
 * (`new URL('./search-worker.ts', import.meta.url)`, started through tsx by src/util/ts-worker.ts), the BM25
 * kernel under build/, configs/ and package.json are found where they are, whichever chunk of dist/ (all in its
 * top folder) the code lands in.
 */
function sourceUrls(outdir) {
  return {
    name: 'source-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const rel = relative(outdir, args.path).split(sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/** Source files under src/ (paths relative to the package root). */
function sourceFiles(dir = 'src') {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : []);
}

/** The worker modules: every `tsWorker(new URL('./x.ts', import.meta.url)` / `tsFork(…)` target under src/. */
export function workerModules() {
  const found = new Set();
  for (const file of sourceFiles()) {
    for (const m of readFileSync(join(root, file), 'utf8').matchAll(/ts(?:Worker|Fork)\(new URL\('(\.{1,2}\/[\w./-]+\.ts)', import\.meta\.url\)/g)) {
      found.add(relative(root, join(root, file, '..', m[1])).split(sep).join('/'));
    }
  }
  return [...found].sort();
}

/** Build dist into `outdir` (default: the package's dist/); returns the sources it was built from and esbuild's metafile. */
export async function buildCli(outdir = join(root, 'dist')) {
  const esbuild = await import('esbuild');
  const tmp = `${outdir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [
        'src/cli.ts',
        ...workerModules().map((p) => ({ in: p, out: `worker-${p.slice('src/'.length, -'.ts'.length).replaceAll('/', '.')}` })),
      ],
      // Every file knows its own URL: ts-worker.ts finds the compiled workers from it (it is undefined in the sources).
      banner: { js: 'const __citebenchChunkUrl = import.meta.url;' },
      bundle: true,
      splitting: true, // one chunk per command: a command loads only its own code, as with the sources
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external', // npm packages load from node_modules as they do from the sources
      outdir: tmp,
      metafile: true,
      logLevel: 'silent',
      plugins: [sourceUrls(outdir)],
    });
    const inputs = Object.keys(result.metafile.inputs).sort(); // paths relative to root
    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'inputs.json'), JSON.stringify({ inputs }) + '\n');
    // Swapped in whole: the binary sees the old dist, none (→ the sources) or the new one.
    rmSync(outdir, { recursive: true, force: true });
    renameSync(tmp, outdir);
    return { inputs, metafile: result.metafile };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const { inputs } = await buildCli();
    console.log(`citebench: compiled the command line into dist/ (${inputs.length} sources)`);
  } catch (e) {
    // An earlier dist stays: the binary checks it against the sources before using it.
    console.error(`notice: the command line was not compiled into dist/ (${String(e?.message ?? e).split('\n')[0]}); citebench will run its TypeScript sources through tsx (same results, ≈ 0.3 s slower to start).`);
  }
}
