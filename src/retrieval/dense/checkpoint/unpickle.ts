/**
 * A restricted pickle reader for PyTorch state_dicts. Python's pickle is a small stack machine whose GLOBAL and
 * REDUCE opcodes import and call arbitrary functions: loading an untrusted pytorch_model.bin with Python's pickle
 * runs whatever the file names. This reader implements only the data opcodes of protocols 2-5 that torch.save
 * writes for a state_dict, and of globals it accepts exactly the names a state_dict uses (OrderedDict, the tensor
 * rebuild functions, storage classes, dtypes), each replaced by a TypeScript data constructor. Any other global or
 * opcode stops the load with one line naming the file and what it found. Nothing from the file is ever executed.
 */
import { CitebenchError } from '../../../util/errors.ts';
import type { StoredDtype } from './tensors.ts';

/** A pickled tuple (kept apart from lists so arguments can be checked). */
export class PickleTuple {
  constructor(readonly items: readonly unknown[]) {}
}

/** `torch.FloatStorage` and friends, or a `torch.float32`-style dtype: names an element type. */
export class StorageType {
  constructor(
    readonly name: string,
    readonly dtype: StoredDtype,
  ) {}
}

/** `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`: a strided view of a storage. */
export class TensorRef {
  constructor(
    readonly storage: unknown,
    /** In elements of the storage's dtype. */
    readonly offset: number,
    readonly size: readonly number[],
    readonly stride: readonly number[],
  ) {}
}

/** A dict or OrderedDict; Python attributes set by BUILD (OrderedDict `_metadata`) are kept aside. */
export class PickleDict extends Map<unknown, unknown> {
  attributes: unknown;
}

const STORAGE_TYPES: Record<string, StoredDtype> = {
  FloatStorage: 'F32',
  HalfStorage: 'F16',
  BFloat16Storage: 'BF16',
  DoubleStorage: 'F64',
  LongStorage: 'I64',
  IntStorage: 'I32',
  ShortStorage: 'I16',
  CharStorage: 'I8',
  ByteStorage: 'U8',
  BoolStorage: 'BOOL',
};
const DTYPES: Record<string, StoredDtype> = {
  float32: 'F32',
  float: 'F32',
  float16: 'F16',
  half: 'F16',
  bfloat16: 'BF16',
  float64: 'F64',
  double: 'F64',
  int64: 'I64',
  long: 'I64',
  int32: 'I32',
  int: 'I32',
  int16: 'I16',
  short: 'I16',
  int8: 'I8',
  uint8: 'U8',
  bool: 'BOOL',
};

type Callable = (args: readonly unknown[], fail: (what: string) => never) => unknown;

function int(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

function sizes(v: unknown, what: string, fail: (what: string) => never): number[] {
  if (!(v instanceof PickleTuple) || !v.items.every((d) => int(d) && d >= 0)) fail(`${what} is not a tuple of non-negative integers`);
  return [...(v as PickleTuple).items] as number[];
}

function rebuildTensor(args: readonly unknown[], fail: (what: string) => never): TensorRef {
  const [storage, offset, size, stride] = args;
  if (!int(offset) || offset < 0) fail('_rebuild_tensor storage offset is not a non-negative integer');
  const sz = sizes(size, '_rebuild_tensor size', fail);
  const st = sizes(stride, '_rebuild_tensor stride', fail);
  if (sz.length !== st.length) fail(`_rebuild_tensor size [${sz}] and stride [${st}] differ in length`);
  return new TensorRef(storage, offset as number, sz, st);
}

/** The callables a state_dict needs, as data constructors. */
const CALLABLES: Record<string, Callable> = {
  'collections.OrderedDict': (args, fail) => {
    const d = new PickleDict();
    if (args.length === 0) return d;
    const items = args[0];
    const list = items instanceof PickleTuple ? items.items : Array.isArray(items) ? items : fail('OrderedDict() argument is not a list of pairs');
    for (const p of list) {
      if (!(p instanceof PickleTuple) || p.items.length !== 2) fail('OrderedDict() argument is not a list of pairs');
      d.set(p.items[0], p.items[1]);
    }
    return d;
  },
  'torch._utils._rebuild_tensor': (args, fail) => {
    if (args.length !== 4) fail(`_rebuild_tensor takes 4 arguments, the pickle gives ${args.length}`);
    return rebuildTensor(args, fail);
  },
  'torch._utils._rebuild_tensor_v2': (args, fail) => {
    if (args.length < 6 || args.length > 7) fail(`_rebuild_tensor_v2 takes 6 or 7 arguments, the pickle gives ${args.length}`);
    const metadata = args[6];
    // conj/neg bits only arise for complex or lazily negated views; a state_dict of real weights has none.
    if (metadata instanceof PickleDict && [...metadata.values()].some((v) => v === true)) fail('a tensor carries conj/neg metadata, which citebench does not apply');
    return rebuildTensor(args, fail);
  },
  'torch._utils._rebuild_parameter': (args, fail) => {
    if (args.length !== 3 || !(args[0] instanceof TensorRef)) fail('_rebuild_parameter is not given a tensor');
    return args[0];
  },
};

/** Resolve a GLOBAL to a data constructor or a type marker, refusing anything else. */
function resolveGlobal(module: string, name: string, file: string): unknown {
  const full = `${module}.${name}`;
  if (full in CALLABLES) return { callable: full };
  if (module === 'torch' && name in STORAGE_TYPES) return new StorageType(full, STORAGE_TYPES[name]!);
  if (module === 'torch' && name in DTYPES) return new StorageType(full, DTYPES[name]!);
  throw new CitebenchError(`${file}: the pickle names global '${full}', which a state_dict does not need; refusing to load it (a checkpoint is untrusted input)`);
}

/** Names of the opcodes this reader does not run, for messages. */
const OTHER_OPCODES: Record<number, string> = {
  0x49: 'INT', 0x4c: 'LONG', 0x53: 'STRING', 0x56: 'UNICODE', 0x46: 'FLOAT', 0x70: 'PUT', 0x67: 'GET', 0x69: 'INST', 0x6f: 'OBJ',
  0x92: 'NEWOBJ_EX', 0x82: 'EXT1', 0x83: 'EXT2', 0x84: 'EXT4', 0x8b: 'LONG4', 0x8f: 'EMPTY_SET', 0x90: 'ADDITEMS', 0x91: 'FROZENSET',
  0x96: 'BYTEARRAY8', 0x97: 'NEXT_BUFFER', 0x98: 'READONLY_BUFFER',
};

export interface UnpickleOptions {
  /** For messages. */
  file: string;
  /** Byte offset of the pickle in `bytes`. */
  start?: number;
  /** Resolve a persistent id (BINPERSID/PERSID): the caller maps torch's ('storage', ...) tuples to storages. */
  persistentLoad?: (pid: unknown) => unknown;
}

export class PickleTruncated extends CitebenchError {}

/** Run one pickle from `bytes[start]` to its STOP; returns the value and the offset just past STOP. */
export function unpickle(bytes: Uint8Array, opts: UnpickleOptions): { value: unknown; end: number } {
  const { file } = opts;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = opts.start ?? 0;
  const stack: unknown[] = [];
  const marks: number[] = [];
  const memo = new Map<number, unknown>();
  const latin1 = new TextDecoder('latin1');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let opAt = pos;

  const fail = (what: string): never => {
    throw new CitebenchError(`${file}: pickle at offset ${opAt}: ${what}`);
  };
  const need = (n: number): number => {
    if (n < 0 || pos + n > bytes.byteLength) throw new PickleTruncated(`${file}: truncated pickle (opcode at offset ${opAt} needs ${n} more bytes, ${bytes.byteLength - pos} left)`);
    const at = pos;
    pos += n;
    return at;
  };
  const u8 = (): number => bytes[need(1)]!;
  const u16 = (): number => view.getUint16(need(2), true);
  const u32 = (): number => view.getUint32(need(4), true);
  const u64 = (): number => {
    const v = view.getBigUint64(need(8), true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) fail(`length ${v} is too large`);
    return Number(v);
  };
  const take = (n: number): Uint8Array => bytes.subarray(need(n), pos);
  const line = (): string => {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) throw new PickleTruncated(`${file}: truncated pickle (opcode at offset ${opAt} has no end of line)`);
    const s = latin1.decode(bytes.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const text = (b: Uint8Array): string => {
    try {
      return utf8.decode(b);
    } catch {
      return fail('a string is not valid UTF-8');
    }
  };
  const pop = (): unknown => {
    if (stack.length === 0 || (marks.length > 0 && stack.length <= marks[marks.length - 1]!)) fail('stack underflow');
    return stack.pop();
  };
  const top = (): unknown => {
    if (stack.length === 0) fail('stack underflow');
    return stack[stack.length - 1];
  };
  const popMark = (): unknown[] => {
    const m = marks.pop();
    if (m === undefined) fail('no MARK on the stack');
    return stack.splice(m!);
  };
  const memoGet = (i: number): unknown => {
    if (!memo.has(i)) fail(`memo entry ${i} is not set`);
    return memo.get(i);
  };
  const setItems = (d: unknown, items: unknown[]): void => {
    if (!(d instanceof PickleDict)) fail('SETITEM on something that is not a dict');
    if (items.length % 2) fail('SETITEMS with an odd number of items');
    for (let i = 0; i < items.length; i += 2) {
      const k = items[i];
      if (typeof k !== 'string' && typeof k !== 'number' && typeof k !== 'boolean' && k !== null) fail('a dict key is not a string or number');
      (d as PickleDict).set(k, items[i + 1]);
    }
  };
  const call = (fn: unknown, args: unknown): unknown => {
    const name = (fn as { callable?: string } | null)?.callable;
    if (name === undefined) fail(fn instanceof StorageType ? `calls ${fn.name}, which a state_dict never does` : 'REDUCE on something that is not an allowed function');
    if (!(args instanceof PickleTuple)) fail(`${name} is called with arguments that are not a tuple`);
    return CALLABLES[name!]!((args as PickleTuple).items, fail);
  };

  for (;;) {
    opAt = pos;
    const op = u8();
    switch (op) {
      case 0x80: // PROTO
        if (u8() > 5) fail('pickle protocol above 5');
        break;
      case 0x95: // FRAME: a length hint only
        u64();
        break;
      case 0x2e: // STOP
        if (stack.length !== 1 || marks.length) fail(`STOP with ${stack.length} values on the stack`);
        return { value: stack[0], end: pos };
      case 0x63: {
        // GLOBAL 'module\nname\n'
        const module = line();
        const name = line();
        stack.push(resolveGlobal(module, name, file));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string') fail('STACK_GLOBAL without two strings');
        stack.push(resolveGlobal(module as string, name as string, file));
        break;
      }
      case 0x71: // BINPUT
        memo.set(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(u32(), top());
        break;
      case 0x94: // MEMOIZE
        memo.set(memo.size, top());
        break;
      case 0x68: // BINGET
        stack.push(memoGet(u8()));
        break;
      case 0x6a: // LONG_BINGET
        stack.push(memoGet(u32()));
        break;
      case 0x7d: // EMPTY_DICT
        stack.push(new PickleDict());
        break;
      case 0x64: {
        // DICT
        const d = new PickleDict();
        setItems(d, popMark());
        stack.push(d);
        break;
      }
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x6c: // LIST
        stack.push(popMark());
        break;
      case 0x61: {
        // APPEND
        const v = pop();
        const l = top();
        if (!Array.isArray(l)) fail('APPEND to something that is not a list');
        (l as unknown[]).push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        const l = top();
        if (!Array.isArray(l)) fail('APPENDS to something that is not a list');
        (l as unknown[]).push(...items);
        break;
      }
      case 0x28: // MARK
        marks.push(stack.length);
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x30: // POP
        pop();
        break;
      case 0x32: // DUP
        stack.push(top());
        break;
      case 0x74: // TUPLE
        stack.push(new PickleTuple(popMark()));
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push(new PickleTuple([]));
        break;
      case 0x85: // TUPLE1
        stack.push(new PickleTuple([pop()]));
        break;
      case 0x86: {
        // TUPLE2
        const b = pop();
        stack.push(new PickleTuple([pop(), b]));
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = pop();
        const b = pop();
        stack.push(new PickleTuple([pop(), b, c]));
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop();
        const k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        setItems(top(), items);
        break;
      }
      case 0x4a: // BININT
        stack.push(view.getInt32(need(4), true));
        break;
      case 0x4b: // BININT1
        stack.push(u8());
        break;
      case 0x4d: // BININT2
        stack.push(u16());
        break;
      case 0x8a: {
        // LONG1: little-endian two's complement of n bytes
        const b = take(u8());
        let v = 0n;
        for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
        if (b.length && b[b.length - 1]! & 0x80) v -= 1n << BigInt(8 * b.length);
        stack.push(v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
        break;
      }
      case 0x47: // BINFLOAT (big-endian)
        stack.push(view.getFloat64(need(8), false));
        break;
      case 0x58: // BINUNICODE
        stack.push(text(take(u32())));
        break;
      case 0x8c: // SHORT_BINUNICODE
        stack.push(text(take(u8())));
        break;
      case 0x8d: // BINUNICODE8
        stack.push(text(take(u64())));
        break;
      case 0x55: // SHORT_BINSTRING (Python 2 str; torch decodes these as ASCII)
        stack.push(latin1.decode(take(u8())));
        break;
      case 0x54: {
        // BINSTRING
        const n = view.getInt32(need(4), true);
        if (n < 0) fail('BINSTRING with a negative length');
        stack.push(latin1.decode(take(n)));
        break;
      }
      case 0x42: // BINBYTES
        stack.push(take(u32()).slice());
        break;
      case 0x43: // SHORT_BINBYTES
        stack.push(take(u8()).slice());
        break;
      case 0x8e: // BINBYTES8
        stack.push(take(u64()).slice());
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x52: {
        // REDUCE
        const args = pop();
        const fn = pop();
        stack.push(call(fn, args));
        break;
      }
      case 0x81: {
        // NEWOBJ: cls.__new__(cls, *args); of the allowed names only OrderedDict is a class (its __new__ ignores args)
        pop();
        const cls = pop();
        if ((cls as { callable?: string } | null)?.callable !== 'collections.OrderedDict') fail('NEWOBJ of something other than OrderedDict');
        stack.push(new PickleDict());
        break;
      }
      case 0x62: {
        // BUILD: set state on the object below; only dicts take state (a state_dict's `_metadata` attribute)
        const state = pop();
        const obj = top();
        if (!(obj instanceof PickleDict)) fail('BUILD on something that is not a dict');
        (obj as PickleDict).attributes = state;
        break;
      }
      case 0x51: {
        // BINPERSID
        const pid = pop();
        if (!opts.persistentLoad) fail('a persistent id where none is expected');
        stack.push(opts.persistentLoad!(pid));
        break;
      }
      case 0x50: {
        // PERSID
        const pid = line();
        if (!opts.persistentLoad) fail('a persistent id where none is expected');
        stack.push(opts.persistentLoad!(pid));
        break;
      }
      default: {
        const name = OTHER_OPCODES[op];
        throw new CitebenchError(
          name
            ? `${file}: pickle opcode ${name} (0x${op.toString(16).padStart(2, '0')}) at offset ${opAt} is not one a state_dict needs; refusing to load it`
            : `${file}: unknown pickle opcode 0x${op.toString(16).padStart(2, '0')} at offset ${opAt} (damaged file, or not a pickle)`,
        );
      }
    }
  }
}
