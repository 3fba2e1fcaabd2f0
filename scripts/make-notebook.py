"""Writes a notebook from a plain-text cell file in jupytext's "percent" style: cells start at lines '# %%',
markdown cells at '# %% [md]', and a markdown cell's lines are comments ('# ' + markdown, or '#' for an empty
line), so the source reads as TypeScript. Notebooks are generated from notebooks/src/*.txt so they stay
reviewable as text and are committed without outputs.  usage: /usr/bin/python3 scripts/make-notebook.py notebooks/src/01-corpus.txt notebooks/01-corpus.ipynb"""
import sys, nbformat

src, out = sys.argv[1], sys.argv[2]
cells, kind, buf = [], None, []
def uncomment(line):
    return '' if line == '#' else line[2:] if line.startswith('# ') else line
def flush():
    if kind is not None:
        text = '\n'.join(uncomment(l) for l in buf) if kind == 'md' else '\n'.join(buf)
        text = text.strip('\n')
        cells.append(nbformat.v4.new_markdown_cell(text) if kind == 'md' else nbformat.v4.new_code_cell(text))
for line in open(src, encoding='utf8').read().split('\n'):
    if line.startswith('# %%'):
        flush(); kind, buf = ('md' if '[md]' in line else 'code'), []
    else:
        buf.append(line)
flush()
nb = nbformat.v4.new_notebook()
nb.metadata['kernelspec'] = {'name': 'tslab', 'display_name': 'TypeScript', 'language': 'typescript'}
nb.metadata['language_info'] = {'name': 'typescript'}
nb.cells = cells
for i, c in enumerate(nb.cells):
    c['id'] = f'cell-{i:02d}'
nbformat.write(nb, out)
