"""The benchmark figures in the docs are the result files' (bench/docfigures.py renders them
from `python -m bench` output, with the machine and the command of each run): every
`<!-- begin bench-...: generated from FILES -->` block of README.md and docs/*.md is what
`docfigures.render` gives now. After a new benchmark run, `PYAD_UPDATE_GOLDEN=1 python -m
pytest tests/docs/test_docs_figures.py` rewrites the blocks; read the diff."""
from __future__ import annotations

import os
import re

import pytest

from bench import docfigures

from .blocks import DOCS, REPO

BLOCK = re.compile(r"^<!-- begin (?P<name>bench-[\w-]+): generated from (?P<files>.*?) -->\n"
                   r"(?P<text>.*?)^<!-- end (?P=name) -->$", re.S | re.M)


def _found() -> dict[str, list]:
    return {str(doc.relative_to(REPO)): list(BLOCK.finditer(doc.read_text())) for doc in DOCS}


def test_every_figure_block_is_used():
    names = [m["name"] for blocks in _found().values() for m in blocks]
    assert sorted(set(names)) == sorted(docfigures.BLOCKS), names


@pytest.mark.parametrize("doc", [d for d, blocks in _found().items() if blocks])
def test_figures_are_the_result_files(doc):
    path = REPO / doc
    text = path.read_text()
    for m in BLOCK.finditer(text):
        begin, _ = docfigures.marker(m["name"])
        assert m.group(0).startswith(begin + "\n"), \
            f"{doc}: {m['name']} should be generated from {begin}"
    if os.environ.get("PYAD_UPDATE_GOLDEN"):
        text = BLOCK.sub(lambda m: "{}\n{}{}".format(docfigures.marker(m["name"])[0],
                                                     docfigures.render(m["name"]),
                                                     docfigures.marker(m["name"])[1]), text)
        path.write_text(text)
    for m in BLOCK.finditer(text):
        assert m["text"] == docfigures.render(m["name"]), (
            f"{doc}: the figures of {m['name']} differ from {m['files']}; run "
            f"PYAD_UPDATE_GOLDEN=1 python -m pytest {__file__}")


def test_each_figure_names_its_machine():
    for name in docfigures.BLOCKS:
        text = docfigures.render(name)
        assert "Measured on " in text or "measured on " in text or "run above" in text, name
        assert re.search(r"\d{4}-\d\d-\d\d", text) or "run above" in text, name
