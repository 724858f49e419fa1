"""Tests of the C runtime: through cffi (pyad._runtime) and the CMake/ctest C test program."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pyad import _runtime

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rt():
    return _runtime.lib()


@pytest.fixture(scope="module")
def ffi():
    return _runtime.ffi()


def test_installed_files_exist():
    for path in (_runtime.library_path(), _runtime.static_library_path(), _runtime.header_path()):
        assert path.is_file(), path
        assert path.parent == _runtime.runtime_dir()


def test_version(rt):
    assert rt.pyad_rt_version() == _runtime.RT_VERSION


def test_ctx_layout_matches_abi(ffi):
    # codegen/abi.py declares CTX_SIZE = 56 (not imported here: it needs llvmlite).
    assert ffi.sizeof("pyad_ctx") == 56
    assert ffi.offsetof("pyad_ctx", "err_msg") == 8


def test_ctx_init_zeroes(rt, ffi):
    ctx = ffi.new("pyad_ctx *")
    ctx.err_kind = 99
    ctx.err_line = 7
    ctx.tape_top = ffi.cast("char *", 1234)
    rt.pyad_ctx_init(ctx)
    assert (ctx.err_kind, ctx.err_line) == (rt.PYAD_OK, 0)
    assert ctx.err_msg == ffi.NULL
    assert ctx.tape_base == ctx.tape_top == ctx.tape_end == ctx.arena == ffi.NULL


def test_tape_grows_keeps_contents_and_moves_to_a_pullback(rt, ffi):
    """In a new thread: a thread reuses the tape its earlier calls released (pyad_pool.c),
    which may be larger than doubling would make it."""
    import threading
    failures = []

    def run():
        try:
            _grow_and_move(rt, ffi)
        except BaseException as e:  # re-raised in the test's thread
            failures.append(e)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    if failures:
        raise failures[0]


def _grow_and_move(rt, ffi):
    ctx = ffi.new("pyad_ctx *")
    rt.pyad_ctx_init(ctx)
    n = 100_000
    for i in range(n):  # push doubles the way generated code does
        if ctx.tape_end - ctx.tape_top < 8:
            assert rt.pyad_tape_grow(ctx, 8) == rt.PYAD_OK
        ffi.cast("double *", ctx.tape_top)[0] = float(i)
        ctx.tape_top += 8
    assert ctx.tape_top - ctx.tape_base == 8 * n
    assert ctx.tape_end - ctx.tape_base < 2 * 8 * n + 4096  # amortised doubling
    pb = rt.pyad_pullback_alloc(ffi.sizeof("pyad_pullback_header") + 8)
    rt.pyad_tape_move_to_pullback(ctx, pb)
    assert ctx.tape_base == ffi.NULL
    assert rt.pyad_pullback_tape_bytes(pb) == 8 * n
    h = ffi.cast("pyad_pullback_header *", pb)
    assert ffi.cast("double *", h.tape_top)[-1] == n - 1.0
    assert ffi.cast("double *", h.tape_base)[0] == 0.0
    rt.pyad_pullback_free(pb)  # frees the tape too (checked for leaks by the RSS tests)
    rt.pyad_tape_release(ctx)  # releasing an empty tape is fine


def test_tape_cut_notes_the_peak_and_a_pullback_reports_it(rt, ffi):
    """Checkpointing cuts the tape (pyad_tape_cut): the most it held is the pullback's
    tape_bytes; a backward sweep that pushes gets a copy of the tape of its own."""
    ctx = ffi.new("pyad_ctx *")
    rt.pyad_ctx_init(ctx)
    assert rt.pyad_tape_grow(ctx, 800) == rt.PYAD_OK
    data = ffi.cast("double *", ctx.tape_base)
    for k in range(100):
        data[k] = float(k)
    ctx.tape_top = ctx.tape_base + 800
    rt.pyad_tape_cut(ctx, 80)  # keeps the first 10 values
    assert ctx.tape_top - ctx.tape_base == 80 and ctx.tape_peak == 800
    pb = rt.pyad_pullback_alloc(ffi.sizeof("pyad_pullback_header"))
    rt.pyad_tape_move_to_pullback(ctx, pb)
    assert rt.pyad_pullback_tape_bytes(pb) == 800
    back = ffi.new("pyad_ctx *")
    rt.pyad_ctx_init(back)
    assert rt.pyad_tape_copy_from_pullback(back, pb) == rt.PYAD_OK
    h = ffi.cast("pyad_pullback_header *", pb)
    assert back.tape_base != h.tape_base and back.tape_top - back.tape_base == 80
    assert list(ffi.cast("double *", back.tape_base)[0:10]) == [float(k) for k in range(10)]
    rt.pyad_ctx_release(back)
    rt.pyad_pullback_free(pb)


def test_tape_grow_failure_is_an_error_not_a_crash(rt, ffi):
    ctx = ffi.new("pyad_ctx *")
    rt.pyad_ctx_init(ctx)
    assert rt.pyad_tape_grow(ctx, 2**62) == rt.PYAD_ERR_MEMORY
    assert ctx.err_kind == rt.PYAD_ERR_MEMORY and ctx.tape_base == ffi.NULL


def test_set_error_first_wins(rt, ffi):
    first = ffi.new("char[]", b"division by zero")
    second = ffi.new("char[]", b"index out of range")
    ctx = ffi.new("pyad_ctx *")
    rt.pyad_ctx_init(ctx)
    assert rt.pyad_set_error(ctx, rt.PYAD_ERR_ZERO_DIVISION, 12, first) == rt.PYAD_ERR_ZERO_DIVISION
    assert rt.pyad_set_error(ctx, rt.PYAD_ERR_INDEX, 40, second) == rt.PYAD_ERR_INDEX
    assert (ctx.err_kind, ctx.err_line) == (rt.PYAD_ERR_ZERO_DIVISION, 12)
    assert ffi.string(ctx.err_msg) == b"division by zero"
    rt.pyad_ctx_init(ctx)
    rt.pyad_set_error(ctx, rt.PYAD_ERR_VALUE, 3, second)
    assert (ctx.err_kind, ctx.err_line) == (rt.PYAD_ERR_VALUE, 3)
    assert ffi.string(ctx.err_msg) == b"index out of range"


@pytest.mark.parametrize("size", [0, 1, 7, 64, 4096, 1 << 20])
def test_pullback_alloc_zeroed(rt, ffi, size):
    p = rt.pyad_pullback_alloc(size)
    q = rt.pyad_pullback_alloc(size)
    try:
        assert p != ffi.NULL and q != ffi.NULL and p != q
        h = ffi.sizeof("pyad_pullback_header")
        buf = ffi.buffer(p, max(size, h))
        assert buf[:] == bytes(max(size, h))
        if size > h:
            buf[h:] = b"\xff" * (size - h)  # writable after the runtime's header
    finally:
        rt.pyad_pullback_free(p)
        rt.pyad_pullback_free(q)


def test_pullback_free_null(rt, ffi):
    rt.pyad_pullback_free(ffi.NULL)


def test_only_api_symbols_exported():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not on PATH")
    out = subprocess.run(
        [nm, "-D", "--defined-only", str(_runtime.library_path())],
        check=True, capture_output=True, text=True,
    ).stdout
    names = {line.split()[-1] for line in out.splitlines() if line.split()[1:2] == ["T"]}
    assert names == {
        "pyad_ctx_init", "pyad_set_error", "pyad_pullback_alloc", "pyad_pullback_free", "pyad_rt_version",
        "pyad_digamma", "pyad_tape_grow", "pyad_tape_release", "pyad_tape_move_to_pullback",
        "pyad_pullback_tape_bytes", "pyad_tape_cut", "pyad_tape_copy_from_pullback", "pyad_alloc", "pyad_ctx_release", "pyad_pullback_zero_shadows", "pyad_index_error",
        "pyad_la_solve", "pyad_la_inv", "pyad_la_det", "pyad_la_slogdet", "pyad_la_cholesky",
        "pyad_la_trisolve", "pyad_la_eigh", "pyad_la_tril_half", "pyad_la_tril_fold",
        "pyad_la_eigh_mid", "pyad_la_svd", "pyad_la_svd_back", "pyad_la_qr", "pyad_la_qr_back",
        "pyad_matmul", "pyad_ctx_reset", "pyad_batch_run",
    }


def test_missing_library_error(monkeypatch, tmp_path):
    monkeypatch.setenv(_runtime.ENV_VAR, str(tmp_path / "libpyad_rt.so"))
    assert _runtime.runtime_dir() == tmp_path
    with pytest.raises(RuntimeError, match=r"pip install -e \."):
        _runtime.library_path()
    with pytest.raises(RuntimeError, match=r"pip install -e \."):
        _runtime.header_path()


def test_env_override(monkeypatch, tmp_path):
    fake = tmp_path / "libcustom_rt.so"
    fake.write_bytes(b"")
    monkeypatch.setenv(_runtime.ENV_VAR, str(fake))
    assert _runtime.library_path() == fake
    with pytest.raises(RuntimeError, match="static library"):
        _runtime.static_library_path()
    (tmp_path / _runtime.STATIC_LIBRARY_NAME).write_bytes(b"")
    assert _runtime.static_library_path() == tmp_path / _runtime.STATIC_LIBRARY_NAME
    monkeypatch.delenv(_runtime.ENV_VAR)
    assert _runtime.library_path().name == _runtime.SHARED_LIBRARY_NAME


def test_no_toplevel_codegen_imports():
    """codegen/ is installed as `pyad.codegen`; `import codegen...` only works by accident when
    the repo root is on sys.path (`python -m pytest` from the repo), never in an installed wheel."""
    bad = re.compile(r"^\s*(import\s+codegen\b|from\s+codegen\b)", re.MULTILINE)
    offenders = [
        str(f.relative_to(REPO))
        for d in ("pyad", "codegen", "tests")
        for f in sorted((REPO / d).rglob("*.py"))
        if bad.search(f.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not offenders, f"use `pyad.codegen` (or relative imports) instead of `codegen` in {offenders}"


def test_cmake_ctest(tmp_path):
    """Configure, build and ctest the standalone CMake project: runtime/test_runtime.c and the
    AOT example (examples/c). The project is copied next to a `.venv` that is this Python's
    virtualenv, and CMake runs with no virtualenv active and without it on PATH: it must find
    pyad in the checkout's .venv (the README's install step) by itself. (docs/aot.md's
    CMake block, run by tests/docs, covers the other way: the virtualenv active.)"""
    import sys
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not on PATH; the standalone C tests need the system cmake")
    ctest = shutil.which("ctest") or str(Path(cmake).with_name("ctest"))
    if not (REPO / "CMakeLists.txt").is_file():
        pytest.skip(f"no CMakeLists.txt in {REPO} (pyad not run from a source checkout)")
    if sys.prefix == sys.base_prefix:
        pytest.skip("pyad is not installed in a virtualenv")
    src = tmp_path / "src"
    for part in ("CMakeLists.txt", "runtime", "examples/c"):
        copy = shutil.copytree if (REPO / part).is_dir() else shutil.copyfile
        (src / part).parent.mkdir(parents=True, exist_ok=True)
        copy(REPO / part, src / part)
    (src / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    venv_bin = str(Path(sys.prefix) / "bin")
    build = tmp_path / "build"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SKBUILD", "CMAKE_ARGS", "VIRTUAL_ENV", "Python3_"))}
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and Path(d).resolve() != Path(venv_bin).resolve())

    def run(*cmd, cwd=tmp_path):
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}"
        return proc.stdout

    out = run(cmake, "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release")
    assert "pyad AOT example (examples/c): pyad compile with" in out, out
    run(cmake, "--build", str(build), "--parallel", "2")
    out = run(ctest, "--output-on-failure", cwd=build)
    assert "100% tests passed" in out
    assert "aot_example_shared" in out and "aot_example_static" in out, out
