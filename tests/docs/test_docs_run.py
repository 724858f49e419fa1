"""The documentation runs as written: every code block of README.md and docs/*.md is run
(or marked `no-run` with its reason), in order, one scratch directory per file, and every
output it shows is what the code prints. The conventions are in docs/testing.md ("The
documentation runs"); notebook.py runs a file, blocks.py reads it, expect.py compares."""
from __future__ import annotations

import pytest

from . import expect
from .blocks import DOCS, REPO, DocFormatError, read
from .notebook import Notebook, copy_repository


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory):
    """A copy of the repository for `repo-root` blocks, made the first time one asks."""
    made: list = []

    def get():
        if not made:
            made.append(copy_repository(tmp_path_factory.mktemp("repo")))
        return made[0]
    return get


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(REPO)) for d in DOCS])
def test_doc_runs_as_written(doc, tmp_path, repo_copy, monkeypatch):
    ran = Notebook(doc, tmp_path, repo_copy, monkeypatch).run()
    code = [b for b in read(doc) if b.lang and b.mode != "no-run" and not b.file_name]
    assert len(ran) == len(code), f"{doc.name}: ran {ran}"


def test_every_block_follows_the_conventions():
    """Known languages, fences at the start of a line, markers in place and with reasons."""
    for doc in DOCS:
        read(doc)  # raises DocFormatError


def test_the_blocks_not_run_are_few_and_say_why():
    skipped = {b.where: b.reason for doc in DOCS for b in read(doc) if b.mode == "no-run"}
    assert all(len(reason.split()) >= 3 for reason in skipped.values()), skipped
    code = [b for doc in DOCS for b in read(doc) if b.lang]
    assert len(skipped) <= 5 and 10 * len(skipped) <= len(code), skipped


def test_the_reader_refuses_what_it_cannot_run(tmp_path, monkeypatch):
    monkeypatch.setattr("tests.docs.blocks.REPO", tmp_path)
    bad = {
        "indented": "text\n\n  ```python\n  x = 1\n  ```\n",
        "language": "```js\nx = 1\n```\n",
        "no reason": "<!-- docs-test: no-run -->\n```bash\nls\n```\n",
        "misplaced marker": "<!-- docs-test: repo-root -->\n\n```bash\nls\n```\n",
        "unknown marker": "<!-- docs-test: skip: why -->\n```bash\nls\n```\n",
        "unclosed": "```python\nx = 1\n",
    }
    for name, text in bad.items():
        path = tmp_path / f"{name.replace(' ', '_')}.md"
        path.write_text(text)
        with pytest.raises(DocFormatError):
            read(path)


def test_a_doc_that_drifts_fails(tmp_path, repo_copy, monkeypatch):
    """The runner fails on a wrong `# ->`, a wrong output block and a failing command."""
    monkeypatch.setattr("tests.docs.blocks.REPO", tmp_path)
    cases = {
        "arrow": "```python\n1 + 1  # -> 3\n```\n",
        "output": "```python\nprint('a')\n```\n\n```\nb\n```\n",
        "command": "```bash\ntrue && false && true\necho never\n```\n",
        "declaration": "```c\nint nowhere(void);\n```\n",
        "unchecked value": "```python\n1 + 1  # 2\n```\n",
    }
    for name, text in cases.items():
        doc = tmp_path / f"{name}.md"
        doc.write_text(text)
        scratch = tmp_path / name
        scratch.mkdir()
        with pytest.raises(AssertionError):
            Notebook(doc, scratch, repo_copy, monkeypatch).run()


@pytest.mark.parametrize("shown, printed, ok", [
    ("0.1818...", "0.18181818181818182", True),
    ("0.1819...", "0.18181818181818182", False),
    ("(0.0743801652892562, -0.09917355371900827)", "(0.07438016528925621, -0.09917355371900827)",
     True),
    ("(0.0743801652892562, None)", "(0.0743801652892562, 1.0)", False),
    ("f = 49.2\ngrad = (-215.6, 112, -100)", "f = 49.2\ngrad = (-215.6, 112, -100)\n", True),
    ("f = 49.2\ngrad = (-215.6, 112, -100)", "f = 49.2\ngrad = (-215.6, 113, -100)", False),
    ("...\n100% tests passed, 0 tests failed out of 4\n...",
     "Test project\n 1/4 Passed 0.01 sec\n\n100% tests passed, 0 tests failed out of 4\n\n"
     "Total Test time (real) = 0.05 sec", True),
    ("TypeError: ... pickle ...", "TypeError: cannot pickle 'x'", True),
    ("1e-09", "1.0000000001e-09", True),
    ("2.5 MiB", "2.6 MiB", False),
])
def test_shown_outputs_are_patterns(shown, printed, ok):
    assert expect.matches(shown, printed) is ok
