"""The `pyad compile` command: `--emit` (IR, gradient IR, LLVM IR, an object file) and `--cpu`,
the entry points, and every bad-input path (one line on stderr, non-zero exit, no traceback).
Exit statuses: test_cli_exit.py; the documented examples: tests/docs."""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pyad
from pyad.codegen.aot.header import cdef

from .tools import cc, nm, pyad_compile, requires_toolchain

pytestmark = requires_toolchain


@pytest.fixture
def cli(monkeypatch, capsys):
    """`pyad compile ARGS` run in this process (the same code as the subprocess path, minus
    the ~0.5 s start-up): returns (exit status, stdout, stderr)."""
    from pyad.aot.cli import main

    def run(*args: str, cwd: Path) -> tuple[int, str, str]:
        monkeypatch.chdir(cwd)
        before = set(sys.modules)
        try:
            status = main(["compile", *args])
        except SystemExit as exc:  # argparse
            status = exc.code
        finally:
            for name in set(sys.modules) - before:
                if not name.startswith(("pyad", "llvmlite", "cffi", "numpy")):
                    del sys.modules[name]
        out, err = capsys.readouterr()
        return status, out, err
    return run


# ------------------------------------------------------------------------- --emit and --cpu

SMALL = '''
import math

def f(x, n):
    s = 0.0
    for i in range(n):
        s += math.sin(x[i]) * x[i]
    return s
'''


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("small")
    (tmp / "small.py").write_text(SMALL)
    return tmp


def _small_f(small: Path):
    spec = importlib.util.spec_from_file_location("pyad_aot_small", small / "small.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return pyad.jit_grad(module.f, argnums="all")


def test_emit_ir_prints_the_primal_ir(small, cli):
    code, out, err = cli("small.py:f", "--sig", "f64(f64[:], i64)", "--emit", "ir", cwd=small)
    assert code == 0, err
    assert out.strip() == _small_f(small).ir(np.zeros(3), 2).strip()


def test_emit_grad_ir_prints_forward_backward_and_fused(small, cli):
    code, out, err = cli("small.py:f", "--sig", "f64(f64[:], i64)", "--emit", "grad-ir",
                         cwd=small)
    assert code == 0, err
    expected = _small_f(small).grad_ir(np.zeros(3), 2)  # forward, backward, fused, safe
    funcs = out.split("func ")[1:]
    assert len(funcs) == 3 and expected.count("func ") == 4
    # the C library's fused kernel holds its version with strong zeros (no Python to ask)
    assert " ".join("func ".join([""] + funcs[:2]).split()) == \
        " ".join("func ".join([""] + expected.split("func ")[1:3]).split())
    assert "StrongZeros" not in funcs[2] and "strongzero" in funcs[2]
    assert "StrongZeros" in expected.split("func ")[3]


def test_emit_llvm_prints_verified_llvm_ir(small, cli):
    import llvmlite.binding as llvm
    code, out, err = cli("small.py:f", "--sig", "f64(f64[:], i64)", "--emit", "llvm", cwd=small)
    assert code == 0, err
    mod = llvm.parse_assembly(out)
    mod.verify()
    assert {fn.name for fn in mod.functions if not fn.is_declaration} >= \
        {"pyadk.0.primal", "pyadk.0.vg"}


def test_emit_obj_writes_a_self_contained_object(small, cli, tmp_path):
    code, _, err = cli("small.py:f", "--sig", "f64(f64[:], i64)", "--emit", "obj", "--name",
                       "sm", "-o", str(tmp_path), cwd=small)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sm.h", "sm.o"]
    globals_ = {n for _, n in nm("-g", "--defined-only", str(tmp_path / "sm.o"))}
    assert globals_ == {"sm_f", "sm_f_grad", "sm_last_error", "sm_free"}
    main = tmp_path / "main.c"
    main.write_text('#include "sm.h"\n#include <math.h>\nint main(void) { double x[2] = {1, 2}, '
                    'v, g[2]; return sm_f_grad(x, 2, 2, &v, g) != SM_OK '
                    '|| fabs(g[1] - (sin(2.0) + 2 * cos(2.0))) > 1e-14; }\n')
    cc("-std=c11", "-I", str(tmp_path), str(main), str(tmp_path / "sm.o"), "-lm", "-o",
       str(tmp_path / "main"))
    assert subprocess.run([str(tmp_path / "main")]).returncode == 0


@pytest.mark.parametrize("cpu", ["native", "x86-64-v3"])
def test_cpu_choices_give_the_same_results(small, cli, tmp_path, cpu):
    import platform
    if cpu != "native" and platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("x86-64 CPU name")
    code, _, err = cli("small.py:f", "--sig", "f64(f64[:], i64)", "--cpu", cpu, "-o",
                       str(tmp_path), cwd=small)
    assert code == 0, err
    import cffi
    ffi = cffi.FFI()
    ffi.cdef(cdef((tmp_path / "small.h").read_text()))
    lib = ffi.dlopen(str(tmp_path / "libsmall.so"))
    x = np.linspace(-2.0, 2.0, 9)
    v, g = ffi.new("double *"), np.zeros(9)
    assert lib.small_f_grad(ffi.from_buffer("double[]", x), 9, 9, v,
                            ffi.from_buffer("double[]", g)) == 0
    jv, (jg, _) = _small_f(small).value_and_grad(x, 9)
    assert v[0] == jv
    np.testing.assert_array_equal(g, jg)


def test_default_cpu_is_a_portable_baseline(small, cli, tmp_path):
    code, _, err = cli("small.py:f", "--sig", "f64(f64[:], i64)", "-o", str(tmp_path), "-v",
                       cwd=small)
    assert code == 0, err
    assert "warning" not in err.lower(), err  # helpers it does not need are not warned about
    import platform
    if platform.machine() in ("x86_64", "AMD64"):
        assert "for cpu x86-64-v2" in err
    dis = subprocess.run(["objdump", "-d", str(tmp_path / "libsmall.so")], capture_output=True,
                         text=True)
    if dis.returncode == 0:
        assert "%ymm" not in dis.stdout and "%zmm" not in dis.stdout


# ------------------------------------------------------------------------- entry points

# (The README's and docs/aot.md's examples run as written in tests/docs/test_docs_run.py.)


def test_entry_points(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pyad", "--version"], capture_output=True,
                          text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("pyad-compiler ")
    script = Path(sys.executable).parent / "pyad"
    if not script.exists():
        pytest.skip("the pyad console script is not installed next to this Python")
    proc = subprocess.run([str(script), "compile", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "--sig" in proc.stdout


# ------------------------------------------------------------------------- bad input

BAD = {
    "ok.py": '''
        import numpy as np
        LIMIT = 3.0

        def f(x, n):
            return x[n] * 2.0

        def g(a):
            return a * a

        def free(a):
            return a

        def g_grad(a):
            return a

        def _helper(xs):
            return sum({x * x for x in xs})

        def calls_bad_helper(xs):
            return _helper(xs) * 2.0

        def star(x, *rest):
            return x

        def default(x, y=2.0):
            return x * y

        def kwonly(x, *, y):
            return x * y
    ''',
    "strings.py": '''
        def named(x):
            return x * 2.0, "twice"
    ''',
    "syntax.py": '''
        def f(x):
            return x +
    ''',
    "unsupported.py": '''
        def f(xs):
            total = 0.0
            return sum({x * x for x in xs})
    ''',
    "crash.py": '''
        A = 1
        B = A / 0
    ''',
}


@pytest.fixture(scope="module")
def bad(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("bad")
    for name, text in BAD.items():
        (tmp / name).write_text(textwrap.dedent(text).lstrip("\n"))
    (tmp / "a_file").write_text("")
    return tmp


@pytest.fixture
def fails(bad, cli):
    """Run the CLI in this process on the `bad` files; check it failed with one line on
    stderr and return that line."""
    def run(*args: str, status: int = 1) -> str:
        code, out, err = cli(*args, cwd=bad)
        assert code == status, (code, err)
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 1, err
        assert "Traceback" not in err
        return lines[0]
    return run


@pytest.mark.parametrize("args, expected", [
    (["nope.py:f", "--sig", "f64(f64)", "-o", "out"],
     "pyad compile: error: no such file: nope.py"),
    (["unsupported.py:f", "--sig", "f64(f64[:])", "-o", "out"],
     "unsupported.py:3:"),
    (["ok.py:g", "--sig", "f64(f64)", "--emit", "exe"],
     "pyad compile: error: argument --emit: invalid choice: 'exe'"),
])
def test_errors_of_the_real_command_are_one_line(bad, args, expected):
    proc = pyad_compile(*args, cwd=bad)
    assert proc.returncode == (2 if "--emit" in args else 1)
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith(expected), proc.stderr


def test_a_string_result_is_refused(fails, tmp_path):
    msg = fails("strings.py:named", "--sig", "(f64, f64)(f64)", "-o", str(tmp_path))
    assert msg.endswith("named returns a string: the results of a C library function are "
                        "numbers and arrays (and tuples of them)"), msg


def test_missing_file(fails, tmp_path):
    msg = fails("nope.py:f", "--sig", "f64(f64)", "-o", str(tmp_path))
    assert msg == "pyad compile: error: no such file: nope.py"


def test_syntax_error_in_module(bad, fails, tmp_path):
    msg = fails("syntax.py:f", "--sig", "f64(f64)", "-o", str(tmp_path))
    assert re.fullmatch(r"syntax\.py:2:\d+: error: invalid syntax", msg), msg


def test_module_raising_at_import(bad, fails, tmp_path):
    msg = fails("crash.py:f", "--sig", "f64(f64)", "-o", str(tmp_path))
    assert msg == ("crash.py:2: error: importing crash.py raised ZeroDivisionError: division by "
                   "zero")


def test_unsupported_construct_keeps_the_located_message(bad, fails, tmp_path):
    msg = fails("unsupported.py:f", "--sig", "f64(f64[:])", "-o", str(tmp_path))
    assert msg.startswith(f"{bad / 'unsupported.py'}:3:") or msg.startswith("unsupported.py:3:")
    assert "error:" in msg and "comprehension" in msg
    assert not list(tmp_path.iterdir())  # nothing written


def test_unknown_function(bad, fails, tmp_path):
    msg = fails("ok.py:nope", "--sig", "f64(f64)", "-o", str(tmp_path))
    assert msg == ("ok.py: error: no function 'nope' in ok.py (it defines: calls_bad_helper, "
                   "default, f, free, g, g_grad, kwonly, star)")


def test_not_a_function(bad, fails, tmp_path):
    msg = fails("ok.py:LIMIT", "--sig", "f64(f64)", "-o", str(tmp_path))
    assert msg == "ok.py: error: 'LIMIT' in ok.py is a float, not a Python function"


@pytest.mark.parametrize("sig, expected", [
    ("f64(f64[:]", "invalid signature 'f64(f64[:]' at column 11: expected ',' or ')', found "
                   "the end"),
    ("f64", "invalid signature 'f64' at column 4: missing the argument list"),
    ("f64(f64[:] i64)", "invalid signature 'f64(f64[:] i64)' at column 12: expected ',' or ')'"),
    ("f64(x64[:], i64)", "invalid signature 'f64(x64[:], i64)' at column 5: unknown type 'x64'"),
    ("f32(f64[:], i64)", "unsupported type 'f32' in signature 'f32(f64[:], i64)' at column 1"),
    ("f64(f64[:, :, :, :], i64)", "unsupported type in signature 'f64(f64[:, :, :, :], i64)' at "
                                  "column 5: 4-D arrays"),
    ("f64(f64[::1, :], i64)", "unsupported layout in signature"),
])
def test_malformed_or_unsupported_signature(bad, fails, tmp_path, sig, expected):
    msg = fails("ok.py:f", "--sig", sig, "-o", str(tmp_path))
    assert msg.startswith(f"pyad compile: error: {expected}"), msg


def test_arity_mismatch(bad, fails, tmp_path):
    msg = fails("ok.py:f", "--sig", "f64(f64[:])", "-o", str(tmp_path))
    assert msg == ("ok.py:4: error: --sig 'f64(f64[:])' gives 1 argument but f(x, n) takes 2")


@pytest.mark.parametrize("func, sig, expected", [
    ("star", "f64(f64)", "ok.py:22: error: star(x, *rest) has a parameter *rest: pyad compiles "
                         "functions whose parameters are plain positional ones without defaults"),
    ("default", "f64(f64)", "ok.py:25: error: default(x, y=2.0) has a default value for 'y':"),
    ("default", "f64(f64, f64)", "ok.py:25: error: default(x, y=2.0) has a default value"),
    ("kwonly", "f64(f64, f64)", "ok.py:28: error: kwonly(x, *, y) has a keyword-only parameter "
                                "'y':"),
])
def test_parameters_that_are_not_plain_positional(bad, fails, tmp_path, func, sig, expected):
    msg = fails(f"ok.py:{func}", "--sig", sig, "-o", str(tmp_path))
    assert msg.startswith(expected), msg


def test_unsupported_construct_in_a_helper_names_the_helper_line(bad, fails, tmp_path):
    msg = fails("ok.py:calls_bad_helper", "--sig", "f64(f64[:])", "-o", str(tmp_path))
    assert re.match(r"(.*/)?ok\.py:17:\d+: error: .*comprehension", msg), msg


def test_declared_result_differs_from_the_inferred_one(bad, fails, tmp_path):
    msg = fails("ok.py:f", "--sig", "f64[:](f64[:], i64)", "-o", str(tmp_path))
    assert msg == ("ok.py:4: error: f returns f64 for arguments (f64[:], i64), but --sig "
                   "'f64[:](f64[:], i64)' declares f64[:]")


def test_function_and_signature_counts_differ(bad, fails, tmp_path):
    msg = fails("ok.py:f,g", "--sig", "f64(f64[:], i64)", "-o", str(tmp_path), status=2)
    assert msg == ("pyad compile: error: 2 functions (f, g) but 1 --sig; give one --sig per "
                   "function, in order")
    msg = fails("ok.py:f", "-o", str(tmp_path), status=2)
    assert msg.startswith("pyad compile: error: missing --sig")


def test_unwritable_output_directory(bad, fails):
    msg = fails("ok.py:g", "--sig", "f64(f64)", "-o", str(bad / "a_file" / "sub"))
    assert msg.startswith(f"pyad compile: error: cannot create output directory "
                          f"{bad / 'a_file' / 'sub'}: "), msg
    msg = fails("ok.py:g", "--sig", "f64(f64)", "-o", str(bad / "a_file"))
    assert msg == (f"pyad compile: error: cannot create output directory {bad / 'a_file'}: a "
                   "file of that name exists")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root can write to read-only directories")
def test_read_only_output_directory(bad, fails, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        msg = fails("ok.py:g", "--sig", "f64(f64)", "-o", str(ro))
        assert msg.startswith(f"pyad compile: error: cannot write to output directory {ro}")
    finally:
        ro.chmod(0o700)


def test_output_directory_is_required_for_a_library(bad, fails):
    msg = fails("ok.py:g", "--sig", "f64(f64)", status=2)
    assert msg == "pyad compile: error: -o OUTDIR is required with --emit so"


@pytest.mark.parametrize("args, expected", [
    (["--name", "2fast"], "--name '2fast' is not a valid library name"),
    (["--name", "int"], "--name 'int' is not a valid library name"),
    (["--name", "m"], "the library name 'm' would make libm.so, the name of a system library"),
    (["--name", "pyad"], "the library name 'pyad' is reserved"),
    (["--cpu", "bogus"], "unknown CPU 'bogus'"),
])
def test_bad_options(bad, fails, tmp_path, args, expected):
    msg = fails("ok.py:g", "--sig", "f64(f64)", "-o", str(tmp_path), *args)
    assert msg.startswith(f"pyad compile: error: {expected}"), msg


def test_exported_name_clashes(bad, fails, cli, tmp_path):
    msg = fails("ok.py:free", "--sig", "f64(f64)", "-o", str(tmp_path), "--name", "lib1")
    assert msg.startswith("ok.py:10: error: free (f64(f64)) would be exported as lib1_free, which "
                          "is reserved for the library's own API")
    msg = fails("ok.py:g,g_grad", "--sig", "f64(f64)", "--sig", "f64(f64)", "-o",
                str(tmp_path), "--name", "lib1")
    assert msg.startswith("ok.py:13: error: two exports would be named lib1_g_grad")
    msg = fails("ok.py:g=ERR_INDEX", "--sig", "f64(f64)", "-o", str(tmp_path), "--name", "L")
    assert msg.startswith("ok.py:7: error: g (f64(f64)) would be exported as L_ERR_INDEX, which "
                          "is reserved for a status code of the header")
    msg = fails("ok.py:g,g", "--sig", "f64(f64)", "--sig", "f64(f64)", "-o",
                str(tmp_path), "--name", "lib1")
    assert msg == "ok.py:7: error: g is listed twice with the signature f64(f64)"
    # aliases resolve it
    code, _, err = cli("ok.py:free=release,g,g_grad=g_plain", "--sig", "f64(f64)", "--sig",
                       "f64(f64)", "--sig", "f64(f64)", "-o", str(tmp_path), "--name", "lib1",
                       cwd=bad)
    assert code == 0, err
    names = {n for _, n in nm("-D", "--defined-only", str(tmp_path / "liblib1.so"))}
    assert names == {"lib1_release", "lib1_release_grad", "lib1_g", "lib1_g_grad",
                     "lib1_g_plain", "lib1_g_plain_grad", "lib1_last_error", "lib1_free"}


@pytest.mark.parametrize("target, expected", [
    ("ok.py", "expected MODULE.py:FUNC[,FUNC...], got 'ok.py'"),
    ("ok.py:f,,g", "empty function name in 'ok.py:f,,g'"),
    ("ok.py:g=", "empty alias in 'g='"),
    ("ok.py:g=2x", "alias '2x' is not a C identifier"),
])
def test_malformed_target(bad, fails, tmp_path, target, expected):
    msg = fails(target, "--sig", "f64(f64)", "-o", str(tmp_path), status=2)
    assert msg.startswith(f"pyad compile: error: {expected}"), msg


def test_command_line_usage_errors_exit_2(bad, fails):
    msg = fails("ok.py:g", "--sig", "f64(f64)", "--emit", "exe", status=2)
    assert msg.startswith("pyad compile: error: argument --emit: invalid choice: 'exe'")
    assert msg.endswith("(see pyad compile --help)")
