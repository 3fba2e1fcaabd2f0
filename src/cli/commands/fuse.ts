import { existsSync } from 'node:fs';
import { parse } from '../args.ts';
import { writeRun } from '../../eval/trec-write.ts';
import { FUSION_METHODS, FUSION_NORMS, paramsProblem, type FusionMethod, type FusionNorm, type FusionParams } from '../../retrieval/fusion/index.ts';
import { fuseRunFiles } from '../../retrieval/fusion/files.ts';
import { CitebenchError } from '../../util/errors.ts';

export const usage = `usage: citebench fuse RUN RUN… --method M --norm N [--k K] [--weights W,W,…] [--gamma G] [--sigma S]
                     [--phi P] [--depth D] [--tag TAG] --out RUN

Fuse TREC runs of the same queries as ranx.fuse does (docs/rerank.md, "Fusion"): each run's list of a query is
sorted as ranx sorts it, cut to its first D, normalised, and the runs are fused over the union of their documents.
The output holds every document of the union, best first in ranx's order (ties as ranx breaks them), with the
fused scores at full double precision.

  --method M    ${FUSION_METHODS.join(', ')}
  --norm N      ${FUSION_NORMS.join(', ')}
  --k K         rrf: Σ 1/(K + rank) (default 60)
  --weights W,… wsum, wmnz: one weight per run, in the runs' order
  --gamma G     gmnz: sum × hits^G
  --sigma S     logn_isr: in [0, 1] (default 0.01)
  --phi P       rbc: in [0, 1)
  --depth D     each run's first D documents per query (default: all of them, as ranx.fuse)
  --tag TAG     run tag of the output (default: the method)
  --out RUN     the fused run`;

const options = {
  method: { type: 'string' }, norm: { type: 'string' }, k: { type: 'string' }, weights: { type: 'string' }, gamma: { type: 'string' },
  sigma: { type: 'string' }, phi: { type: 'string' }, depth: { type: 'string' }, tag: { type: 'string' }, out: { type: 'string' },
} as const;

function number(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new CitebenchError(`--${flag}: '${v}' is not a number`);
  return n;
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals: inputs } = parse(args, options, usage);
  if (inputs.length < 2) throw new CitebenchError(`give at least two runs to fuse\n\n${usage}`);
  const method = values.method as FusionMethod | undefined;
  if (method === undefined) throw new CitebenchError(`--method is required: one of ${FUSION_METHODS.join(', ')}`);
  if (!FUSION_METHODS.includes(method)) throw new CitebenchError(`--method: unknown method '${method}' (one of ${FUSION_METHODS.join(', ')})`);
  const norm = values.norm as FusionNorm | undefined;
  if (norm === undefined) throw new CitebenchError(`--norm is required: one of ${FUSION_NORMS.join(', ')}`);
  if (!FUSION_NORMS.includes(norm)) throw new CitebenchError(`--norm: unknown normalisation '${norm}' (one of ${FUSION_NORMS.join(', ')})`);
  const params: FusionParams = {
    k: number('k', values.k), gamma: number('gamma', values.gamma), sigma: number('sigma', values.sigma), phi: number('phi', values.phi),
    weights: values.weights === undefined ? undefined : values.weights.split(',').map((w) => number('weights', w)!),
  };
  const problem = paramsProblem(method, params, inputs.length);
  if (problem) throw new CitebenchError(`--${problem.param}: ${problem.problem}`);
  const depth = values.depth === undefined ? Infinity : number('depth', values.depth)!;
  if (!(Number.isInteger(depth) && depth >= 1) && depth !== Infinity) throw new CitebenchError(`--depth: must be a positive integer, got ${values.depth}`);
  const out = values.out;
  if (out === undefined) throw new CitebenchError('--out is required: the fused run to write');
  for (const f of inputs) {
    if (!existsSync(f)) throw new CitebenchError(`${f}: no such run`);
    if (f === out) throw new CitebenchError(`${out}: the output is also an input`);
  }

  const fused = fuseRunFiles(inputs, { method, norm, params }, depth);
  const { qids, run: r } = fused;
  writeRun(out, { ...fused, tag: values.tag ?? method, keepOrder: true });
  console.log(`${out}: ${r.docs.length} lines, ${qids.length} queries, ${method} of ${inputs.length} runs (norm ${norm}${depth === Infinity ? '' : `, depth ${depth}`})`);
  return 0;
}
