"""Running the blocks of one documentation file in order, like the cells of a notebook
(the conventions: docs/testing.md, "The documentation runs"; reading them: blocks.py).

- All blocks of a file share one scratch directory, the working directory of everything
  they run; Python blocks share one namespace (`__name__ == "__main__"`), and the scratch
  directory is on `sys.path`, so `import model` finds the file a block wrote.
- A Python block whose first line is `# NAME.py`, or a C block whose first line is
  `/* NAME.c */`, is that file: it is written into the scratch directory, not run. Any other
  C block holds declarations that the headers made so far (`*.h` in the scratch directory)
  must contain, spaces aside.
- Any other Python block runs statement by statement. A top-level expression statement whose
  line ends in a comment `# -> TEXT` is checked: TEXT must show the repr of its value, or,
  for a `print(...)` call, what it printed (expect.py). Any other comment after a top-level
  expression statement is refused: it would read as an unchecked value. Its source is the documentation
  file itself (compiled with the file's name and line numbers), so `jit_grad` reads the
  functions from the Markdown and errors name the Markdown line.
- A shell block runs in bash, one command per line (a line ending in `\\` continues), and
  stops at the first command that exits with a non-zero status. The Python running the
  tests comes first on PATH (its virtualenv active, as after the README's install step), so
  `python` and `pyad` are this pyad. `repo-root` blocks run at the root of a copy of the
  repository (its tracked and untracked, not ignored, files) instead.
- A block without a language that follows a block that ran shows that block's stdout.
- The on-disk cache lives in the scratch directory: nothing a block does reaches the user's
  `~/.cache/pyad`.
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import Callable

import pytest

from . import expect
from .blocks import REPO, Block, read

SHELL_TIMEOUT_S = 600
TOOLS = ("cc", "cmake", "ctest")


def copy_repository(dest: Path) -> Path:
    """The repository's files (tracked, and untracked but not ignored) copied to `dest`."""
    proc = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                           "--exclude-standard"], capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "__pycache__", "*.so", "*.a", "*.o"), dirs_exist_ok=True)
        return dest
    for name in proc.stdout.split("\0"):
        if name and (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    return dest


class Notebook:
    """One documentation file run block by block (`run`)."""

    def __init__(self, doc: Path, scratch: Path, repo_copy: Callable[[], Path],
                 monkeypatch: pytest.MonkeyPatch) -> None:
        self.doc, self.scratch, self.repo_copy, self.mp = doc, scratch, repo_copy, monkeypatch
        self.ns: dict = {"__name__": "__main__"}
        self.ran: list[str] = []      # where each block that ran is (for the report)
        cache = scratch / ".cache"
        self.env = {k: v for k, v in os.environ.items() if k != "PYAD_CACHE_DIR"}
        self.env["XDG_CACHE_HOME"] = str(cache)
        self.env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent),
                                            self.env.get("PATH", "")])
        if sys.prefix != sys.base_prefix:
            self.env["VIRTUAL_ENV"] = sys.prefix

    def run(self) -> list[str]:
        modules = set(sys.modules)
        self.mp.chdir(self.scratch)
        self.mp.syspath_prepend(str(self.scratch))
        self.mp.setenv("XDG_CACHE_HOME", self.env["XDG_CACHE_HOME"])
        self.mp.delenv("PYAD_CACHE_DIR", raising=False)
        try:
            printed: str | None = None
            for block in read(self.doc):
                printed = self._block(block, printed)
        finally:
            for name in set(sys.modules) - modules:  # the doc's own modules (model.py, ...)
                file = getattr(sys.modules[name], "__file__", None) or ""
                if file.startswith(str(self.scratch)):
                    del sys.modules[name]
        return self.ran

    def _block(self, b: Block, printed: str | None) -> str | None:
        """Run `b`; return what it printed (None when it did not run)."""
        if b.mode == "no-run":
            return None
        if b.lang == "":
            if b.follows and printed is not None:
                expect.check(b.body, printed, f"{b.where} (the output of the block before it)")
            return None
        if b.file_name:
            (self.scratch / b.file_name).write_text(b.body)
            return None
        self.ran.append(b.where)
        if b.lang == "c":
            self._declarations(b)
            return None
        if b.lang == "python":
            return self._python(b)
        return self._shell(b)

    def _declarations(self, b: Block) -> None:
        headers = " ".join(" ".join(h.read_text().split())
                           for h in sorted(self.scratch.rglob("*.h")))
        for decl in re.split(r"(?<=;)\s*\n", b.body.strip()):
            assert " ".join(decl.split()) in headers, \
                f"{b.where}: no header made so far declares\n{decl}"

    # ---------------------------------------------------------------------- Python blocks

    def _python(self, b: Block) -> str:
        filename = str(b.doc)
        source = "\n" * b.line + b.body  # line numbers are the Markdown file's
        comments = _comments(source)
        arrows = {n: c[len("# -> "):].strip() for n, c in comments.items()
                  if c.startswith("# -> ")}
        out = io.StringIO()
        for stmt in ast.parse(source, filename).body:
            shown = arrows.pop(stmt.end_lineno, None)
            where = f"{b.rel}:{stmt.lineno}"
            assert shown is not None or not isinstance(stmt, ast.Expr) or \
                stmt.end_lineno not in comments, (
                    f"{where}: a comment after an expression looks like its value; show a value "
                    "with '# -> VALUE' (checked), and put prose elsewhere")
            try:
                with contextlib.redirect_stdout(out):
                    if shown is None:
                        exec(compile(ast.Module([stmt], []), filename, "exec"), self.ns)
                        continue
                    assert isinstance(stmt, ast.Expr), \
                        f"{where}: '# ->' follows a statement that is not an expression"
                    start = out.tell()
                    value = eval(compile(ast.Expression(stmt.value), filename, "eval"), self.ns)
            except Exception as exc:
                exc.add_note(f"in the Python block at {b.where}, statement at {where}")
                raise
            text = out.getvalue()[start:] if _is_print(stmt.value) else repr(value)
            expect.check(shown, text, where)
        assert not arrows, (f"{b.where}: '# ->' on lines {sorted(arrows)}, which do not end a "
                            "top-level statement")
        return out.getvalue()

    # ----------------------------------------------------------------------- shell blocks

    def _shell(self, b: Block) -> str:
        for tool in TOOLS:
            if re.search(rf"(^|[\s;&|(]){tool}\b", b.body, re.M) and shutil.which(tool) is None:
                pytest.skip(f"{b.where} needs {tool}, which is not on PATH")
        cwd = self.repo_copy() if b.mode == "repo-root" else self.scratch
        proc = subprocess.run(["bash", "-c", _checked_script(b)], cwd=cwd, env=self.env,
                              capture_output=True, text=True, timeout=SHELL_TIMEOUT_S)
        assert proc.returncode == 0, (f"{b.where}: the shell block failed in {cwd}\n"
                                      f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc.stdout


def _comments(source: str) -> dict[int, str]:
    """line -> the comment on it."""
    return {tok.start[0]: tok.string
            for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT}


def _is_print(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "print"


def _checked_script(b: Block) -> str:
    """The block's commands, each followed by a check of its exit status (`set -e` would let
    a failure in the middle of `a && b` pass)."""
    prelude = 'command -v pyad >/dev/null 2>&1 || pyad() { python -m pyad "$@"; }\n'
    lines, command, first = [], "", 0
    for n, line in enumerate(b.body.splitlines(), start=b.line + 1):
        if not command:
            first = n
        command += line + "\n"
        if line.endswith("\\"):
            continue
        if command.strip() and not command.lstrip().startswith("#"):
            lines.append(command)
            lines.append(f'__s=$?; if [ $__s -ne 0 ]; then echo "{b.doc.name}:{first}: exit '
                         f'status $__s" >&2; exit $__s; fi\n')
        command = ""
    return prelude + "".join(lines)
