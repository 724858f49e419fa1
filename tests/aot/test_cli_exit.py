"""The exit statuses of `pyad compile`: the table of docs/aot.md ("Exit status") is the one the
command follows, and every row of it is tested (the real command in a subprocess where that
is the point, the same `main` in this process where an error must be injected). A reader that
closes stdout early (`pyad compile ... --emit grad-ir | head`) ends the command quietly."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pyad.aot import cli

from .tools import REPO, pyad_compile, requires_toolchain

pytestmark = requires_toolchain

SOURCES = {
    "ok.py": '''
        import math

        def g(a):
            return a * math.sin(a)

        def comprehension(xs):
            return sum({x * x for x in xs})
    ''',
    # a gradient IR of about 170 KB: far more than a pipe holds, so a reader that stops after
    # a few lines always closes the pipe before the command has written everything
    "big.py": "import math\n\n\ndef f(x):\n    s = 0.0\n" + "".join(
        f"    s = s + math.sin(x * {i + 1}.0 + s) * math.exp(-s * {0.01 * (i % 7):.2f})\n"
        for i in range(60)) + "    return s\n",
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("exit")
    for name, text in SOURCES.items():
        (tmp / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return tmp


def documented_table() -> dict[int, str]:
    """status -> meaning, from the table under "Exit status" in docs/aot.md."""
    text = (REPO / "docs" / "aot.md").read_text()
    section = text[text.index("**Exit status.**"):]
    section = section[:section.index("\n\n", section.index("| status"))]
    rows = re.findall(r"^\| (\d+) \| (.*) \|$", section, re.M)
    assert rows, "no exit status table in docs/aot.md"
    return {int(status): meaning for status, meaning in rows}


def test_the_documented_table_is_the_one_the_command_follows():
    constants = {cli.EXIT_OK, cli.EXIT_INPUT, cli.EXIT_USAGE, cli.EXIT_INTERNAL,
                 cli.EXIT_INTERRUPTED, cli.EXIT_BROKEN_PIPE}
    assert set(documented_table()) == constants
    assert set(documented_table()) == set(STATUS_OF)  # every row has its tests below


# One case of each row through the real command (a subprocess).
STATUS_OF = {
    0: ["ok.py:g", "--sig", "f64(f64)", "--emit", "ir"],
    1: ["nope.py:g", "--sig", "f64(f64)", "-o", "out"],
    2: ["ok.py:g", "--sig", "f64(f64)"],                      # no -o for a library
    70: None,   # injected in this process: test_internal_error_is_70
    130: None,  # injected in this process: test_interrupt_is_130
    141: None,  # test_a_closed_pipe_ends_quietly
}


@pytest.mark.parametrize("status", [s for s, args in STATUS_OF.items() if args])
def test_each_status_through_the_real_command(inputs, status):
    proc = pyad_compile(*STATUS_OF[status], cwd=inputs)
    assert proc.returncode == status, proc.stderr
    if status == 0:
        assert proc.stdout.startswith("func g(") and proc.stderr == ""
    else:
        assert proc.stdout == "" and len(proc.stderr.splitlines()) == 1, proc.stderr


@pytest.fixture
def run_main(inputs, monkeypatch, capsys):
    """`main(["compile", *args])` in this process: (status, stdout, stderr)."""
    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.chdir(inputs)
        try:
            status = cli.main(list(args))
        except SystemExit as exc:
            status = exc.code
        out, err = capsys.readouterr()
        return status, out, err
    return run


@pytest.mark.parametrize("args", [
    ["compile", "ok.py:g", "--sig", "f64(f64", "--emit", "ir"],         # signature text
    ["compile", "ok.py:comprehension", "--sig", "f64(f64[:])", "--emit", "ir"],  # construct
    ["compile", "ok.py:nope", "--sig", "f64(f64)", "--emit", "ir"],      # unknown function
    ["compile", "ok.py:g", "--sig", "f64[:](f64)", "--emit", "ir"],      # declared result
    ["compile", "ok.py:g", "--sig", "f64(f64)", "-o", "out", "--name", "m"],  # option value
])
def test_input_errors_are_1(run_main, args):
    status, out, err = run_main(*args)
    assert (status, out, len(err.splitlines())) == (cli.EXIT_INPUT, "", 1), err


@pytest.mark.parametrize("args", [
    [],                                                       # no command
    ["compile"],                                              # no target
    ["compile", "ok.py:g", "-o", "out"],                      # no --sig
    ["compile", "ok.py:g", "--sig", "f64(f64)"],              # no -o for a library
    ["compile", "ok.py:g", "--sig", "f64(f64)", "--bogus"],   # unknown option
    ["compile", "ok.py:g", "--sig", "f64(f64)", "--emit", "exe"],
    ["compile", "ok.py:g,g", "--sig", "f64(f64)", "-o", "out"],  # one --sig per function
    ["compile", "ok.py", "--sig", "f64(f64)", "-o", "out"],      # target without :FUNC
    ["frobnicate"],                                           # unknown command
])
def test_usage_errors_are_2(run_main, args):
    status, out, err = run_main(*args)
    assert (status, out, len(err.splitlines())) == (cli.EXIT_USAGE, "", 1), err


def test_help_and_version_are_0(run_main):
    assert run_main("compile", "--help")[0] == cli.EXIT_OK
    assert run_main("--version")[0] == cli.EXIT_OK


def test_internal_error_is_70(run_main, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("a bug")
    monkeypatch.setattr(cli.pipeline, "primal_ir", broken)
    status, out, err = run_main("compile", "ok.py:g", "--sig", "f64(f64)", "--emit", "ir")
    assert status == cli.EXIT_INTERNAL and out == ""
    assert err == ("pyad compile: internal error: KeyError: 'a bug' (run with -v for the "
                   "traceback)\n")
    status, _, err = run_main("compile", "ok.py:g", "--sig", "f64(f64)", "--emit", "ir", "-v")
    assert status == cli.EXIT_INTERNAL and "Traceback" in err


def test_interrupt_is_130(run_main, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli.pipeline, "primal_ir", interrupted)
    status, out, err = run_main("compile", "ok.py:g", "--sig", "f64(f64)", "--emit", "ir")
    assert (status, out, err) == (cli.EXIT_INTERRUPTED, "", "pyad compile: interrupted\n")


BIG = [sys.executable, "-m", "pyad", "compile", "big.py:f", "--sig", "f64(f64)", "--emit",
       "grad-ir"]


def test_a_closed_pipe_ends_quietly(inputs):
    """Read a few lines, close the pipe: status 141, nothing on stderr. Five times, since
    where the write fails is a race; and once with the pipe closed before anything is
    written."""
    for _ in range(5):
        proc = subprocess.Popen(BIG, cwd=inputs, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        head = [proc.stdout.readline() for _ in range(3)]
        proc.stdout.close()
        err = proc.stderr.read()
        proc.stderr.close()
        assert proc.wait(timeout=120) == cli.EXIT_BROKEN_PIPE, err
        assert err == b"" and head[0].startswith(b"func f.fwd(")
    proc = subprocess.Popen(BIG, cwd=inputs, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert (proc.wait(timeout=120), err) == (cli.EXIT_BROKEN_PIPE, b"")


def test_head_in_a_shell_pipeline(inputs):
    """What the issue ran: `pyad compile ... --emit grad-ir | head`; head gets its lines,
    nothing is printed on stderr, and the pipeline's status is head's."""
    command = shlex.join(BIG) + " | head -n 2; echo \"statuses ${PIPESTATUS[*]}\" >&2"
    for _ in range(3):
        proc = subprocess.run(["bash", "-c", command], cwd=inputs, capture_output=True,
                              text=True, timeout=120)
        assert proc.stdout.startswith("func f.fwd(%x: f64)"), proc.stderr
        assert len(proc.stdout.splitlines()) == 2 and proc.stderr == f"statuses {cli.EXIT_BROKEN_PIPE} 0\n"
