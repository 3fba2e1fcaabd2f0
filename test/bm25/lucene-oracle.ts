/**
 * Runs real Lucene 8.7 (Debian liblucene8-java) as the parity oracle: compiles lucene/LuceneOracle.java once
 * per content hash into os.tmpdir(), then runs it on NUL-separated text files.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';

const JARS = ['/usr/share/java/lucene-core-8.7.0.jar', '/usr/share/java/lucene-analyzers-common-8.7.0.jar'];
const SOURCE = new URL('./lucene/LuceneOracle.java', import.meta.url).pathname;

/** Why the oracle cannot run here, or undefined when it can. */
export function oracleUnavailable(): string | undefined {
  for (const j of JARS) if (!existsSync(j)) return `Lucene jar ${j} missing (run scripts/setup.sh: liblucene8-java)`;
  if (spawnSync('javac', ['-version']).status !== 0) return 'javac missing (run scripts/setup.sh: default-jdk-headless)';
  return undefined;
}

function classDir(): string {
  const src = readFileSync(SOURCE);
  const hash = createHash('sha256').update(src).update(JARS.join(':')).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `citebench-lucene-oracle-${hash}`);
  if (existsSync(join(dir, 'LuceneOracle.class'))) return dir;
  const tmp = mkdtempSync(join(tmpdir(), 'citebench-lucene-build-'));
  execFileSync('javac', ['-cp', JARS.join(':'), '-d', tmp, SOURCE], { stdio: 'pipe' });
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process won the race
  }
  return dir;
}

function run(args: string[]): void {
  const cp = [classDir(), ...JARS].join(':');
  execFileSync('java', ['-cp', cp, 'LuceneOracle', ...args], { stdio: 'pipe', maxBuffer: 1 << 28 });
}

function work(): string {
  const dir = mkdtempSync(join(tmpdir(), 'citebench-lucene-run-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

function writeTexts(path: string, texts: string[]): void {
  for (const t of texts) if (t.includes('\0')) throw new Error('texts for the oracle must not contain NUL');
  writeFileSync(path, texts.join('\0'));
}

/** Lucene EnglishAnalyzer tokens of each text. */
export function luceneAnalyze(texts: string[]): string[][] {
  const dir = work();
  try {
    writeTexts(join(dir, 'in'), texts);
    run(['analyze', join(dir, 'in'), join(dir, 'out')]);
    const lines = readFileSync(join(dir, 'out'), 'utf8').split('\n');
    return texts.map((_, i) => (lines[i] === '' ? [] : lines[i].split(' ')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lucene PorterStemFilter output of each word. */
export function luceneStem(words: string[]): string[] {
  const dir = work();
  try {
    writeFileSync(join(dir, 'in'), words.join('\n') + '\n');
    run(['stem', join(dir, 'in'), join(dir, 'out')]);
    return readFileSync(join(dir, 'out'), 'utf8').split('\n').slice(0, words.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface OracleHit {
  doc: number;
  score: number;
}

/** Lucene BM25 top-k of each query over `docs` (docid = position), Anserini-style bag-of-words queries. */
export function luceneSearch(docs: string[], queries: string[], k: number, k1 = 0.9, b = 0.4): OracleHit[][] {
  const dir = work();
  try {
    writeTexts(join(dir, 'docs'), docs);
    writeTexts(join(dir, 'queries'), queries);
    run(['search', join(dir, 'docs'), join(dir, 'queries'), String(k), String(k1), String(b), join(dir, 'out')]);
    const out: OracleHit[][] = queries.map(() => []);
    const f32 = new Float32Array(1);
    const i32 = new Int32Array(f32.buffer);
    for (const line of readFileSync(join(dir, 'out'), 'utf8').split('\n')) {
      if (!line) continue;
      const [q, , doc, bits] = line.split(' ').map(Number);
      i32[0] = bits;
      out[q].push({ doc, score: f32[0] });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
