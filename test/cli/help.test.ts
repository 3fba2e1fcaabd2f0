// Every command's --help names every option its parser accepts, and names no option the parser would refuse.
// Data-driven: the commands come from the registry and the options from the parser itself (HelpRequested
// carries them), so a command or option added later is checked without touching this file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commands } from '../../src/cli/registry.ts';
import { HelpRequested, type Options } from '../../src/cli/args.ts';

/** The usage text and parser options of one command, got in-process by running it with --help. */
async function helpOf(name: string): Promise<{ usage: string; options: Options }> {
  const entry = commands.find((c) => c.name === name)!;
  const mod = await entry.load();
  try {
    await mod.run(['--help']);
  } catch (e) {
    if (e instanceof HelpRequested) return { usage: e.usage, options: e.options };
    throw e;
  }
  throw new Error(`citebench ${name} --help returned without printing its usage`);
}

/** `--name` tokens of a text (not `--` alone, not inside a longer word). */
function namedOptions(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![\w-])--([A-Za-z][A-Za-z0-9]*(?:-[a-z0-9]+)*)/g)].map((m) => m[1]));
}

/** The registered command a code span starts with (`citebench mdcr-eval …`, `dense search …`), if any. */
function commandOf(span: string): string | undefined {
  const words = span.replace(/^citebench\s+/, '').split(/\s+/);
  return commands.map((c) => c.name).sort((a, b) => b.length - a.length).find((n) => n.split(' ').every((w, i) => words[i] === w));
}

/**
 * Splits a usage text into its own words and its code spans. A span that starts with another command is an
 * example of that command (its options are checked against that command's parser); one that starts with
 * anything else (`sbatch --array=I …`) quotes another program and is not checked.
 */
function spans(usage: string): { own: string; quoted: { command: string; text: string }[] } {
  const quoted: { command: string; text: string }[] = [];
  const own = usage.replace(/`([^`]*)`/g, (_, span: string) => {
    const command = commandOf(span);
    if (command) quoted.push({ command, text: span });
    return ' ';
  });
  return { own, quoted };
}

for (const { name } of commands) {
  test(`citebench ${name} --help names every option its parser accepts, and no other`, async () => {
    const { usage, options } = await helpOf(name);
    assert.ok(Object.keys(options).length > 0, `${name}: the parser's options were not passed on`);
    const named = namedOptions(usage);
    const missing = Object.keys(options).filter((o) => !named.has(o));
    assert.deepEqual(missing, [], `citebench ${name} --help does not name: ${missing.map((o) => '--' + o).join(', ')}`);
    for (const [o, spec] of Object.entries(options)) {
      if (spec.short) assert.match(usage, new RegExp(`(?<![\\w-])-${spec.short}\\b`), `citebench ${name} --help does not name -${spec.short} (--${o})`);
    }
    const { own, quoted } = spans(usage);
    const unknown = [...namedOptions(own)].filter((o) => o !== 'help' && !(o in options));
    assert.deepEqual(unknown, [], `citebench ${name} --help names options its parser refuses: ${unknown.map((o) => '--' + o).join(', ')}`);
    for (const q of quoted) {
      const theirs = q.command === name ? options : (await helpOf(q.command)).options;
      const bad = [...namedOptions(q.text)].filter((o) => o !== 'help' && !(o in theirs));
      assert.deepEqual(bad, [], `citebench ${name} --help quotes \`${q.text}\` with options citebench ${q.command} refuses`);
    }
    assert.doesNotMatch(usage, /main job/i, `citebench ${name} --help: say "the paper's evaluation" or the config's name`);
  });
}

test('dense search --help says PyTorch checkpoints are converted in-process (no ONNX export step)', async () => {
  const { usage } = await helpOf('dense search');
  assert.match(usage, /in-process/);
  assert.doesNotMatch(usage, /needs an ONNX export/);
});

test('the command list (citebench --help) speaks of the product only', () => {
  for (const c of commands) assert.doesNotMatch(c.summary, /main job/i, c.name);
});
