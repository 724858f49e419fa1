"""Functions defined where users write code, not only in .py files: a Jupyter notebook run by a
real kernel, `python -c`, the interactive prompt on a terminal (readline), and the prompt fed
from a pipe, which keeps no source and says what to do (pyad/frontend/recover.py)."""
from __future__ import annotations

import ast
import math
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from ..golden_files import check_golden

X, Y = 1.3, 0.7


def expected() -> tuple[float, tuple[float, float]]:
    """f(x, y) = (sin(x) y)^2 at (X, Y): the value by CPython, the gradient by hand, checked
    here against central differences."""
    def f(x, y):
        return (math.sin(x) * y) ** 2
    z = math.sin(X) * Y
    grad = (2.0 * z * math.cos(X) * Y, 2.0 * z * math.sin(X))
    h = 1e-6
    fd = ((f(X + h, Y) - f(X - h, Y)) / (2 * h), (f(X, Y + h) - f(X, Y - h)) / (2 * h))
    assert grad == pytest.approx(fd, rel=1e-8)
    return f(X, Y), grad


def check_result(line: str) -> None:
    """`RESULT value gradient` as printed by the programs below, against `expected()`."""
    value, grad = (ast.literal_eval(part) for part in line.split(" ", 2)[1:])
    want_value, want_grad = expected()
    assert value == pytest.approx(want_value, rel=1e-15)
    assert grad == pytest.approx(want_grad, rel=1e-14)


def tagged(text: str, tag: str) -> list[str]:
    return [line.rstrip("\r") for line in text.splitlines() if line.startswith(tag + " ")]


def environment(home) -> dict:
    """The subprocesses' environment: a home of their own, so that the prompt neither reads
    nor writes the user's ~/.python_history."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYAD_TRACEBACK", "PYTHONSTARTUP")}
    return dict(env, HOME=str(home), TERM="dumb", PYTHONIOENCODING="utf-8")


# The same session in every place: a function compiled and differentiated, then one refused.
SESSION = f'''\
import math, pyad
@pyad.jit_grad(argnums=(0, 1))
def f(x, y):
    z = math.sin(x) * y
    return z * z

print("RESULT", repr(f({X}, {Y})), repr(f.grad({X}, {Y})))
@pyad.jit_grad
def bad(x):
    try:
        return x / 2.0
    except ZeroDivisionError:
        return 0.0

try:
    bad(1.0)
except pyad.PyadError as e:
    print("ERROR", repr(str(e)))

'''


def test_python_c(tmp_path):
    proc = subprocess.run([sys.executable, "-c", SESSION], capture_output=True, text=True,
                          cwd=tmp_path, env=environment(tmp_path), timeout=120)
    assert proc.returncode == 0, proc.stderr
    [result] = tagged(proc.stdout, "RESULT")
    check_result(result)
    [error] = tagged(proc.stdout, "ERROR")
    check_golden("errors/source_python_c.txt", ast.literal_eval(error.split(" ", 1)[1]) + "\n")


def test_the_interactive_prompt_on_a_terminal(tmp_path):
    """`python -i` on a pseudo-terminal, as a user types: the source comes from readline."""
    pytest.importorskip("readline")  # CPython on Linux and macOS has it; Windows does not
    out = run_on_terminal([sys.executable, "-q", "-i"], SESSION + "exit()\n", tmp_path)
    [result] = tagged(out, "RESULT")
    check_result(result)
    [error] = tagged(out, "ERROR")
    check_golden("errors/source_prompt.txt", ast.literal_eval(error.split(" ", 1)[1]) + "\n")


def test_the_interactive_prompt_from_a_pipe_says_what_to_do(tmp_path):
    proc = subprocess.run([sys.executable, "-q", "-i"], input=SESSION, capture_output=True,
                          text=True, cwd=tmp_path, env=environment(tmp_path), timeout=120)
    assert tagged(proc.stdout, "RESULT") == []
    error = proc.stderr[proc.stderr.index("pyad.errors.PyadSyntaxError: ") + 29:]
    check_golden("errors/source_stdin.txt", error[:error.index("\n>>>")] + "\n")
    assert "pyad/frontend" not in proc.stderr  # the internal frames are cut


def run_on_terminal(argv: list[str], typed: str, cwd) -> str:
    """What the terminal shows when `typed` is typed into `argv` (until it exits)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                            env=environment(cwd), close_fds=True)
    os.close(slave)
    out = bytearray()
    try:
        os.write(master, typed.encode())
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                out += data
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
        proc.kill() if proc.poll() is None else None
        proc.wait()
    return out.decode(errors="replace")


# ----------------------------------------------------------------------------- Jupyter

CELLS = [
    "import math\nimport pyad",
    # a helper in a cell of its own, called from a compiled function in a later cell
    "def helper(x, y):\n    return math.sin(x) * y",
    f"@pyad.jit_grad(argnums=(0, 1))\ndef f(x, y):\n    z = helper(x, y)\n    return z * z\n"
    f"print('RESULT', repr(f({X}, {Y})), repr(f.grad({X}, {Y})))",
    # f defined again in another cell: the new cell's text is compiled
    f"@pyad.jit_grad(argnums=(0, 1))\ndef f(x, y):\n    return helper(x, y) * 3.0\n"
    f"print('AGAIN', repr(f({X}, {Y})), repr(f.grad({X}, {Y})))",
    "@pyad.jit_grad\ndef bad(x):\n    match x:\n        case 0.0:\n            return 1.0\n"
    "    return x\ntry:\n    bad(1.0)\nexcept pyad.PyadError as e:\n    print('ERROR', repr(str(e)))",
    "@pyad.jit_grad\ndef divide(a, b):\n    return a / b\ndivide(1.0, 0.0)",
    "bad(2.0)",
]


def test_functions_defined_in_jupyter_cells(tmp_path):
    """A notebook run by a real IPython kernel (one kernel start for all the cases)."""
    nbformat = pytest.importorskip("nbformat")  # both in the test extra: this never skips there
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=environment(tmp_path))  # the kernel's IPython profile in tmp_path
    outputs = [cell.outputs for cell in nb.cells]
    text = ["".join(o.get("text", "") for o in out) for out in outputs]
    [result] = tagged(text[2], "RESULT")
    check_result(result)
    [again] = tagged(text[3], "AGAIN")
    value, grad = (ast.literal_eval(p) for p in again.split(" ", 2)[1:])
    assert value == pytest.approx(math.sin(X) * Y * 3.0, rel=1e-15)
    assert grad == pytest.approx((math.cos(X) * Y * 3.0, math.sin(X) * 3.0), rel=1e-14)
    [error] = tagged(text[4], "ERROR")
    check_golden("errors/source_notebook.txt", ast.literal_eval(error.split(" ", 1)[1]) + "\n")
    # uncaught errors: the message names the cell; pyad's frames are not shown
    [runtime] = [o for o in outputs[5] if o.output_type == "error"]
    assert runtime.ename == "ZeroDivisionError"
    assert runtime.evalue == "float division by zero (line 3 of Cell In[6])"
    [compile_error] = [o for o in outputs[6] if o.output_type == "error"]
    assert compile_error.ename == "PyadSyntaxError"
    assert compile_error.evalue.startswith("Cell In[5]:3:5: error: unsupported syntax: match")
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(compile_error.traceback))
    frames = re.findall(r"^File (\S+):\d+", shown, re.MULTILINE)
    assert frames and sum("/pyad/" in f for f in frames) <= 1, shown
