"""Dev check on a real tslab kernel (Jupyter's protocol, as Jupyter Notebook or VS Code talk to it): runs each
notebook's code cells in order, fails on an error or anything on stderr (tslab prints type errors there and skips
the cell), then sends complete_request for `cb.` and for `res.` after the cells that define `res`, and prints what
the kernel offers. The kernel runs in a scratch folder whose node_modules/citebench is this checkout, so it sees
this checkout's lib/citebench.d.ts and src/ (not those of another checkout sharing node_modules).

usage: CITEBENCH_SMALL=1 /usr/bin/python3 scripts/kernel-complete.py [NAME …]   (default: every notebook)
       /usr/bin/python3 scripts/kernel-complete.py --quick   (no notebook: declares `res`, prints the
       completions of `cb.` and `res.` and what Shift-Tab shows on `res.table`, as JSON; test/notebooks/types.test.ts
       runs this)
"""
import json, os, pathlib, shutil, sys, tempfile, time
import nbformat
from jupyter_client.manager import KernelManager

REPO = pathlib.Path(__file__).resolve().parents[1]
scratch = pathlib.Path(tempfile.mkdtemp(prefix='cb-kernel-check-'))
(scratch / 'node_modules').mkdir()
(scratch / 'node_modules' / 'citebench').symlink_to(REPO)
(scratch / 'node_modules' / '@types').symlink_to(REPO / 'node_modules' / '@types')
spec = scratch / 'kernels' / 'tslab'
spec.mkdir(parents=True)
(spec / 'kernel.json').write_text(json.dumps({'argv': [str(REPO / 'node_modules/.bin/tslab'), 'kernel', '--config-path', '{connection_file}'], 'display_name': 'TypeScript', 'language': 'typescript'}))
os.environ['JUPYTER_PATH'] = str(scratch)
os.environ.setdefault('CITEBENCH_WORK', str(scratch / 'data'))

def start():
    km = KernelManager(kernel_name='tslab')
    km.start_kernel(cwd=str(scratch))
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    return km, kc

def complete(kc, probe):
    msg_id = kc.complete(probe, len(probe))
    reply = kc.get_shell_msg(timeout=60)
    assert reply['parent_header']['msg_id'] == msg_id
    return reply['content']['matches']

def inspect(kc, code):
    """What Shift-Tab shows at the end of `code` (inspect_request): the signature and doc comment."""
    msg_id = kc.inspect(code, len(code))
    reply = kc.get_shell_msg(timeout=60)
    assert reply['parent_header']['msg_id'] == msg_id
    return reply['content'].get('data', {}).get('text/plain', '')

if sys.argv[1:] == ['--quick']:
    km, kc = start()
    try:
        out = []
        reply = kc.execute_interactive("import * as cb from 'citebench';\nlet res: cb.ResultsFrames;", timeout=120, output_hook=lambda m: out.append(m['content']) if m['msg_type'] in ('error', 'stream') else None)
        answer = {'status': reply['content']['status'], 'outputs': out, 'cb': complete(kc, 'cb.'), 'res': complete(kc, 'res.'), 'inspect': inspect(kc, 'res.table')}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        del kc, km
    shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps(answer))
    sys.exit(0)

names = sys.argv[1:] or sorted(p.stem for p in (REPO / 'notebooks' / 'src').glob('*.txt'))
failed = 0
for name in names:
    nb = nbformat.read(REPO / 'notebooks' / f'{name}.ipynb', as_version=4)
    km, kc = start()
    problems, t0 = [], time.time()
    try:
        for i, cell in enumerate(c for c in nb.cells if c.cell_type == 'code'):
            def on_output(msg, i=i):
                t, c = msg['msg_type'], msg['content']
                if t == 'error': problems.append(f'code cell {i + 1}: {c["ename"]}: {c["evalue"]}')
                if t == 'stream' and c['name'] == 'stderr': problems.append(f'code cell {i + 1} stderr: {c["text"][:300]}')
            reply = kc.execute_interactive(cell.source, timeout=600, output_hook=on_output)
            if reply['content']['status'] != 'ok': problems.append(f'code cell {i + 1}: status {reply["content"]["status"]}')
        print(f'{name}: {"FAILED" if problems else "ran"} in {time.time() - t0:.1f} s')
        for p in problems: print(f'  {p}')
        failed += bool(problems)
        code = '\n'.join(c.source for c in nb.cells if c.cell_type == 'code')
        for probe in ['cb.', 'res.'] if 'const res =' in code else ['cb.']:
            matches = complete(kc, probe)
            print(f'  complete_request {probe!r}: {len(matches)} matches: {", ".join(matches)}')
            if not matches: failed += 1
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        del kc, km  # now, not at interpreter exit (where jupyter_client's __del__ logs a TypeError)
shutil.rmtree(scratch, ignore_errors=True)
print(f'{failed} problem(s)' if failed else f'all {len(names)} notebooks ran; completion answered')
sys.exit(1 if failed else 0)
