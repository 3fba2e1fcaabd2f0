#!/usr/bin/env node
/**
 * citebench command line. `citebench <command> [options]`; `citebench <command> --help` for each.
 * User errors (bad input, bad options) print one clear message and exit 2 — never a stack trace.
 */
import { commands, type CommandEntry } from './cli/registry.ts';
import { HelpRequested } from './cli/args.ts';
import { CitebenchError } from './util/errors.ts';
import { removeLiveTemps } from './util/atomic.ts';

function topUsage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'citebench — citation recommendation evaluation at scale (Medić & Šnajder 2022, reproduced)',
    '',
    'usage: citebench <command> [options]      (from a checkout: npm run citebench -- <command> …)',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `citebench <command> --help` for the options of a command.',
  ].join('\n');
}

function findCommand(argv: string[]): { entry: CommandEntry; rest: string[] } | undefined {
  // Longest multi-word match first ("bm25 index" before "bm25").
  const sorted = [...commands].sort((a, b) => b.name.split(' ').length - a.name.split(' ').length);
  for (const entry of sorted) {
    const words = entry.name.split(' ');
    if (words.every((w, i) => argv[i] === w)) return { entry, rest: argv.slice(words.length) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    console.log(topUsage());
    return argv.length === 0 ? 1 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    const group = commands.filter((c) => c.name.startsWith(argv[0] + ' '));
    if (group.length) {
      console.error(`citebench ${argv[0]}: choose a subcommand:\n` + group.map((c) => `  ${c.name}  ${c.summary}`).join('\n'));
    } else {
      console.error(`citebench: unknown command '${argv[0]}'\n\n${topUsage()}`);
    }
    return 2;
  }
  const mod = await found.entry.load();
  try {
    return (await mod.run(found.rest)) ?? 0;
  } catch (e) {
    if (e instanceof HelpRequested) {
      console.log(e.usage);
      return 0;
    }
    throw e;
  }
}

/** A file-system error that names its path (Node's message: "CODE: description, syscall 'path'"). */
function isPathError(e: unknown): e is NodeJS.ErrnoException {
  const x = e as NodeJS.ErrnoException;
  return e instanceof Error && typeof x.code === 'string' && typeof x.syscall === 'string' && typeof x.path === 'string';
}

// `citebench … | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

// Stopped (a cancelled SLURM task gets SIGTERM, Ctrl-C SIGINT): the temp files being written go with the process;
// a file being written synchronously is finished first (the handler runs between calls). 128 + signal number.
for (const [sig, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const)
  process.once(sig, () => {
    removeLiveTemps();
    process.exit(code);
  });

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof CitebenchError) {
      console.error(`citebench: ${e.message}`);
      process.exitCode = 2;
    } else if (isPathError(e)) {
      // A path the user gave that cannot be read or written (ENOTDIR, EACCES, ENOSPC …): not a bug.
      console.error(`citebench: ${e.message}`);
      process.exitCode = 2;
    } else {
      console.error(e);
      process.exitCode = 70; // internal error: a bug, keep the stack
    }
  },
);
