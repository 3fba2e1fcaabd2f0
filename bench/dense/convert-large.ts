/**
 * Converting a 4B-parameter checkpoint (scripts/dev/make-large-shape-checkpoint.py DIR: Qwen3-Embedding-4B's shape,
 * sharded bfloat16, 8 GB) to citebench's int8 ONNX graph (external data: 4 GB), in a child process under
 * /usr/bin/time -v: seconds and peak RSS (the bound: under 16 GB).
 *   flock /tmp/citebench-heavy.lock node --import tsx bench/dense/convert-large.ts DIR [fp32]
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, totalmem } from 'node:os';
import { CONVERT_CACHE } from '../../src/retrieval/dense/convert.ts';
import { convertChild } from './convert-child.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/dense/convert-large.ts DIR [fp32]');
const int8 = process.argv[3] !== 'fp32';
console.log(`machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${new Date().toISOString()}`);
rmSync(join(dir, CONVERT_CACHE), { recursive: true, force: true });
console.log(JSON.stringify({ case: dir.split('/').filter(Boolean).pop(), variant: int8 ? 'int8' : 'fp32', ...convertChild(dir, int8).row }));
