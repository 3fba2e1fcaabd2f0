/**
 * The byte-level line scanning under the TREC readers (trec-io.ts): files read in chunks and split into lines,
 * lines into whitespace-separated tokens as C's isspace() does (trec_eval's sscanf), a line-count estimate to
 * size the arrays once, and the line numbers of content lines for error messages.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { InputError } from '../util/errors.ts';

/** Bytes read at a time. */
export const CHUNK = 1 << 20;
/** A run line's six fields; later ones are ignored, as trec_eval does. */
export const MAX_TOKENS = 6;
/** The token bounds tokenize() fills: one line at a time, read before the next call. */
export const tokStart = new Int32Array(MAX_TOKENS);
export const tokEnd = new Int32Array(MAX_TOKENS);

/** C isspace(): space, \t, \n, \v, \f, \r. */
export const SPACE = new Uint8Array(256);

for (const c of [32, 9, 10, 11, 12, 13]) SPACE[c] = 1;

/** Split buf[s, e) into at most `max` whitespace-separated tokens (into tokStart/tokEnd). */
export function tokenize(buf: Uint8Array, s: number, e: number, max: number): number {
  let n = 0;
  let i = s;
  while (n < max) {
    while (i < e && SPACE[buf[i]] === 1) i++;
    if (i >= e) break;
    tokStart[n] = i;
    while (i < e && SPACE[buf[i]] === 0) i++;
    tokEnd[n] = i;
    n++;
  }
  return n;
}

/** Call fn for every line of the file (without its newline), reading in chunks. */
export function forEachLine(path: string, fn: (buf: Uint8Array, start: number, end: number, line: number) => void): void {
  const fd = openInput(path);
  try {
    let buf = Buffer.allocUnsafe(CHUNK);
    let have = 0;
    let line = 0;
    for (;;) {
      if (have === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, buf.length - have, null);
      const end = have + n;
      // A plain Uint8Array view: element access on it is faster than on a Buffer.
      const view = new Uint8Array(buf.buffer, buf.byteOffset, end);
      let s = 0;
      for (let i = 0; i < end; i++) {
        if (view[i] === 10) {
          fn(view, s, i, ++line);
          s = i + 1;
        }
      }
      if (n === 0) {
        if (s < end) fn(view, s, end, ++line);
        return;
      }
      buf.copy(buf, 0, s, end);
      have = end - s;
    }
  } finally {
    closeSync(fd);
  }
}

/** Lines in the file, estimated from its size and the mean length of its first 64 KiB of lines. */
export function estimateLines(path: string): number {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const head = Buffer.allocUnsafe(Math.min(size, 1 << 16));
      const n = readSync(fd, head, 0, head.length, 0);
      let lines = 0;
      for (let i = 0; i < n; i++) if (head[i] === 10) lines++;
      const mean = lines ? n / lines : 32;
      return Math.min(Math.ceil((size / mean) * 1.02) + 16, 1 << 28);
    } finally {
      closeSync(fd);
    }
  } catch {
    return 1024;
  }
}

export function openInput(path: string): number {
  try {
    return openSync(path, 'r');
  } catch (e) {
    throw new InputError(path, undefined, undefined, `cannot open: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Line numbers of the given content-line ordinals (0-based, blank and # lines not counted): the error path. */
export function lineNumbersOf(path: string, ordinals: number[]): number[] {
  const want = new Map(ordinals.map((o) => [o, 0]));
  let ordinal = 0;
  forEachLine(path, (buf, s, e, line) => {
    const n = tokenize(buf, s, e, 1);
    if (n === 0 || buf[tokStart[0]] === 35) return;
    if (want.has(ordinal)) want.set(ordinal, line);
    ordinal++;
  });
  return ordinals.map((o) => want.get(o) ?? 0);
}
