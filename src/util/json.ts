/**
 * Reading JSON files given by users (configs' side files, MDCR benchmarks and scores, results folders): a syntax
 * error is one line naming the file, line and column, never a stack trace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { InputError } from './errors.ts';

/** Parse a JSON file; a syntax error names the file, line and column. */
export function readJsonFile(path: string): unknown {
  const text = readTextFile(path);
  try {
    return JSON.parse(text);
  } catch (e) {
    // Node 20's messages do not always give a position: find the first offending byte ourselves.
    const p = jsonErrorOffset(text);
    const before = text.slice(0, p);
    const line = before.split('\n').length;
    const col = p - before.lastIndexOf('\n');
    throw new InputError(path, line, undefined, `malformed JSON at column ${col}: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** A JSON file that must hold an object (a model folder's config.json…); anything else is one line naming the file. */
export function readJsonObject(path: string): Record<string, unknown> {
  const v = readJsonFile(path);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InputError(path, undefined, undefined, 'must be a JSON object');
  return v as Record<string, unknown>;
}

/** readJsonObject, or undefined when the file is absent. */
export function readJsonObjectIf(path: string): Record<string, unknown> | undefined {
  return existsSync(path) ? readJsonObject(path) : undefined;
}

/** Offset of the first JSON syntax error in text (a small recursive-descent scan; the error path only). */
function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const str = () => {
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const num = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    } else if (c === '"') str();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else num();
  };
  try {
    value();
    ws();
    return i < text.length ? i : text.length;
  } catch (pos) {
    return typeof pos === 'number' ? pos : 0;
  }
}

/** A user's file as UTF-8 text; a file that cannot be read is one line naming it and why. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(path, undefined, undefined, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}
