"""The C libraries `pyad compile` writes, called from C and through cffi: the C example that
CMake builds (examples/c, same arguments: examples/c/springs.args) checks its value and
gradient; the exported symbols are exactly the documented API; two static libraries link into
one program; the header compiles as C and C++; and a library of workloads agrees with the JIT
(loops, branches, 2-D arrays, array and tuple results with their vjp, recursion, int and bool
values, helpers, run-time errors as status and message, calls from threads).

Each library is compiled once per module (fixtures)."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

import pyad
from pyad.codegen.aot.header import cdef

from .tools import CXX, EXAMPLE, cc, example_args, nm, pyad_compile, requires_toolchain

# one worker compiles the module's libraries (fixtures) for all its tests (tests/conftest.py)
pytestmark = [requires_toolchain, pytest.mark.xdist_group("aot_library")]


# ------------------------------------------------------------------------- the C example

@pytest.fixture(scope="module")
def springs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("springs")
    proc = pyad_compile(*example_args(), "-o", str(out), "-v", cwd=EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr.lower(), proc.stderr  # the wrappers compile cleanly
    return out


def test_example_files(springs):
    assert sorted(p.name for p in springs.iterdir()) == ["libsprings.a", "libsprings.so",
                                                         "springs.h"]


@pytest.mark.parametrize("variant", ["shared", "static"])
def test_example_program_checks_value_and_gradient(springs, variant):
    exe = springs / f"main_{variant}"
    lib = ["-L", str(springs), "-lsprings", f"-Wl,-rpath,{springs}"] if variant == "shared" \
        else [str(springs / "libsprings.a")]
    cc("-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(springs), str(EXAMPLE / "main.c"),
       *lib, "-lm", "-pthread", "-o", str(exe))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAIL" not in proc.stdout
    assert proc.stdout.count("ok  ") == 17
    assert proc.stdout.strip().endswith("all checks passed")
    assert "IndexError: index 5 is out of bounds for axis 0 with size 5 (line" in proc.stdout


def test_example_shared_library_exports_only_its_api(springs):
    so = str(springs / "libsprings.so")
    defined = {name for kind, name in nm("-D", "--defined-only", so)}
    assert defined == {"springs_energy", "springs_energy_grad", "springs_prefix_energy",
                       "springs_prefix_energy_vjp", "springs_stretch", "springs_stretch_grad",
                       "springs_last_error", "springs_free", "springs_energy_vmap",
                       "springs_energy_vmap_grad", "springs_energy_vmap_grad_sum",
                       "springs_prefix_energy_vmap", "springs_stretch_vmap",
                       "springs_stretch_vmap_grad", "springs_stretch_vmap_grad_sum"}
    undefined = {name.split("@")[0] for kind, name in nm("-D", "--undefined-only", so)}
    assert not [n for n in undefined if n.startswith(("Py", "_Py", "pyad"))]
    assert "malloc" in undefined and "cos" in undefined  # libc and libm only


def test_example_static_archive_has_only_prefixed_globals(springs):
    globals_ = [(k, n) for k, n in nm("-g", "--defined-only", str(springs / "libsprings.a"))]
    assert globals_ and all(n.startswith("springs_") for _, n in globals_), globals_


def test_example_commands_in_comments_match_the_args_file():
    """The commands written in main.c and springs.py are the ones CMake and the tests run."""
    import shlex
    for name, prefix in [("main.c", " * "), ("springs.py", "")]:
        lines = (EXAMPLE / name).read_text().splitlines()
        start = next(i for i, ln in enumerate(lines) if "pyad compile springs" in ln)
        text = " ".join(ln.removeprefix(prefix).strip().rstrip("\\") for ln in
                        lines[start:start + 2])
        words = shlex.split(text)
        assert words[:2] == ["pyad", "compile"] and words[-2:] == ["-o", "build"], text
        assert words[2:-2] == example_args(), name


# ------------------------------------------------------------------------- workloads vs JIT

WORK = '''
import math
import numpy as np
import pyad


def dot_loop(x, y, n):
    s = 0.0
    for i in range(n):
        s += x[i] * y[i] + math.sin(x[i])
    return s


def branchy(a, b):
    if a > b:
        r = a * a - b
    else:
        r = math.exp(b) * a
    return r


def grid(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * A[i, j] * (i + 1) - A[i, j] * j
    return s


def running(x):
    out = np.zeros(len(x))
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i]
        out[i] = acc
    return out


def pair(x, s):
    return np.sum(x * x) * s, np.tanh(x) * s


def flip(A):
    return A.T


def count(x, t):
    c = 0
    for i in range(len(x)):
        if x[i] > t:
            c += 1
    return c


def sign_test(x, flag):
    if flag:
        return x > 0.0
    return x < 0.0


def ratio(a, b):
    assert a == a, "a is nan"
    return a / b


def exp(x):
    return math.exp(x) + 1.0


def main(x):
    return 2.0 * x * x


@pyad.jit_grad
def decorated(x):
    return x * x * x


def norm(x):
    return np.sqrt(np.sum(x * x))


def _sq(v):
    return v * v


def _sum_sq(x):
    s = 0.0
    for i in range(len(x)):
        s += _sq(x[i])
    return s


def calls(x, k):
    """Calls plain helpers, another exported function and a jit_grad function."""
    return k * _sum_sq(x) + branchy(x[0], k) + decorated(k)


def _scaled(x, c):
    return np.tanh(x) * c, c * c


def scaled(x, c):
    y, c2 = _scaled(x, c)
    return y + c2


def first(n):
    a = np.zeros(n)
    return a[0] + 1.0


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def apower(a, k):
    if k == 0:
        return np.ones(a.shape[0])
    return a * apower(a, k - 1)


def tree_sum(x, lo, hi):
    if hi - lo == 1:
        return x[lo] * x[lo]
    mid = (lo + hi) // 2
    return tree_sum(x, lo, mid) + tree_sum(x, mid, hi)


def array_recursion(x, k):
    return np.sum(apower(x[::-1], k)) + tree_sum(x, 0, x.shape[0])


def gauss(A, b):
    s, l = np.linalg.slogdet(A)
    return l + np.sum(np.linalg.solve(A, b))


def layer(X, W):
    return np.sum(np.tanh(X @ W.T))
'''

WORK_SIGS = [
    ("dot_loop=dot", "f64(f64[:], f64[:], i64)"),
    ("branchy", "f64(f64, f64)"),
    ("grid", "f64(f64[:, :])"),
    ("running", "f64[:](f64[:])"),
    ("pair", "(f64, f64[:])(f64[:], f64)"),
    ("flip", "f64[:, :](f64[:, :])"),
    ("count", "i64(f64[:], f64)"),
    ("sign_test", "bool(f64, bool)"),
    ("ratio", "f64(f64, f64)"),
    ("exp", "f64(f64)"),
    ("main", "f64(f64)"),
    ("decorated", "f64(f64)"),
    ("norm", "f64(f64[:])"),
    ("norm", "f64(f64[:, :])"),
    ("calls", "f64(f64[:], f64)"),
    ("scaled", "f64[:](f64[:], f64)"),
    ("first", "f64(i64)"),
    ("power", "f64(f64, i64)"),
    ("array_recursion", "f64(f64[:], i64)"),
    ("gauss", "f64(f64[:, :], f64[:])"),
    ("layer", "f64(f64[:, :], f64[:, :])"),
]

WORK_EXPORTS = {
    "work_last_error", "work_free",
    "work_dot", "work_dot_grad", "work_branchy", "work_branchy_grad", "work_grid",
    "work_grid_grad", "work_running", "work_running_vjp", "work_pair", "work_pair_vjp",
    "work_flip", "work_flip_vjp", "work_count", "work_sign_test", "work_ratio",
    "work_ratio_grad", "work_exp", "work_exp_grad", "work_main", "work_main_grad",
    "work_decorated", "work_decorated_grad", "work_norm__f64a1", "work_norm__f64a1_grad",
    "work_norm__f64a2", "work_norm__f64a2_grad", "work_calls", "work_calls_grad",
    "work_scaled", "work_scaled_vjp", "work_first", "work_power", "work_power_grad",
    "work_array_recursion", "work_array_recursion_grad",
    "work_gauss", "work_gauss_grad", "work_layer", "work_layer_grad",
}


class Work:
    def __init__(self, out: Path, module) -> None:
        import cffi
        self.out, self.py = out, module
        self.header = (out / "work.h").read_text()
        self.ffi = cffi.FFI()
        self.ffi.cdef(cdef(self.header))
        self.lib = self.ffi.dlopen(str(out / "libwork.so"))

    def d(self, a: np.ndarray):
        """A double* (or bool*) over a contiguous numpy array."""
        return self.ffi.from_buffer("double[]" if a.dtype == np.float64 else "bool[]", a)

    def error(self) -> str:
        return self.ffi.string(self.lib.work_last_error()).decode()


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Work:
    tmp = tmp_path_factory.mktemp("work")
    src = tmp / "work.py"
    src.write_text(WORK)
    out = tmp / "out"
    args = [f"work.py:{','.join(f for f, _ in WORK_SIGS)}"]
    for _, s in WORK_SIGS:
        args += ["--sig", s]
    proc = pyad_compile(*args, "-o", str(out), cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    spec = importlib.util.spec_from_file_location("pyad_aot_work_module", src)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Work(out, module)


RNG = np.random.default_rng(6)


def test_exported_symbols_are_exactly_the_documented_api(work):
    defined = {n for _, n in nm("-D", "--defined-only", str(work.out / "libwork.so"))}
    assert defined == WORK_EXPORTS
    declared = set(re.findall(r"^(?:int |const char \*|void )(work_\w+)\(", work.header, re.M))
    assert declared == WORK_EXPORTS
    # every declaration has a comment right above it
    lines = work.header.splitlines()
    starts = [i for i, ln in enumerate(lines) if re.match(r"(int |const char \*|void )work_", ln)]
    assert len(starts) == len(WORK_EXPORTS)
    assert all(lines[i - 1].endswith("*/") for i in starts)


def test_two_static_libraries_link_into_one_program(work, springs, tmp_path):
    """Each archive holds its own private copy of the runtime: no duplicate symbols."""
    main = tmp_path / "two.c"
    main.write_text('#include "work.h"\n#include "springs.h"\n'
                    "int main(void) { double x[2] = {0.0, 1.0}, a, b, g[2];\n"
                    "    return work_exp_grad(0.0, &a, &b) != WORK_OK || a != 2.0 || b != 1.0\n"
                    "        || springs_stretch_grad(x, 2, 0, &a, g) != SPRINGS_OK || a != 0.0\n"
                    "        || g[0] != -1.0 || g[1] != 1.0; }\n")
    cc("-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(work.out), "-I", str(springs),
       str(main), str(work.out / "libwork.a"), str(springs / "libsprings.a"), "-lm",
       "-pthread", "-o", str(tmp_path / "two"))  # -pthread: libsprings has --vmap
    assert subprocess.run([str(tmp_path / "two")]).returncode == 0


def test_header_compiles_as_c_and_cpp(work, tmp_path):
    use = tmp_path / "use.c"
    use.write_text('#include "work.h"\nint main(void) { double v; '
                   'return work_exp(1.0, &v) == WORK_OK ? 0 : 1; }\n')
    for std in ("c99", "c11"):
        cc(f"-std={std}", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-I",
           str(work.out), str(use))
    if CXX:
        cpp = tmp_path / "use.cpp"
        cpp.write_text(use.read_text().replace("(void)", "()"))
        proc = subprocess.run([CXX, "-std=c++11", "-Wall", "-Wextra", "-pedantic", "-Werror",
                               "-I", str(work.out), str(cpp), "-L", str(work.out), "-lwork",
                               f"-Wl,-rpath,{work.out}", "-o", str(tmp_path / "use_cpp")],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert subprocess.run([str(tmp_path / "use_cpp")]).returncode == 0


def test_loop_with_array_indexing_agrees_with_jit(work):
    lib, ffi = work.lib, work.ffi
    x, y = RNG.normal(size=7), RNG.normal(size=7)
    jit = pyad.jit_grad(work.py.dot_loop, argnums="all")
    out = ffi.new("double *")
    assert lib.work_dot(work.d(x), 7, work.d(y), 7, 5, out) == 0
    assert out[0] == jit(x, y, 5)
    gx, gy, v = np.full(7, 9.0), np.full(7, 9.0), ffi.new("double *")
    assert lib.work_dot_grad(work.d(x), 7, work.d(y), 7, 5, v, work.d(gx), work.d(gy)) == 0
    jv, (jgx, jgy, jn) = jit.value_and_grad(x, y, 5)
    assert v[0] == jv and jn is None
    np.testing.assert_array_equal(gx, jgx)  # the buffers were overwritten, not added to
    np.testing.assert_array_equal(gy, jgy)


@pytest.mark.parametrize("a, b", [(2.0, 1.0), (0.5, 1.5)])
def test_branch_agrees_with_jit(work, a, b):
    jit = pyad.jit_grad(work.py.branchy, argnums="all")
    out, v, ga, gb = (work.ffi.new("double *") for _ in range(4))
    assert work.lib.work_branchy(a, b, out) == 0 and out[0] == jit(a, b)
    assert work.lib.work_branchy_grad(a, b, v, ga, gb) == 0
    assert (v[0], (ga[0], gb[0])) == jit.value_and_grad(a, b)
    assert work.lib.work_branchy_grad(a, b, work.ffi.NULL, work.ffi.NULL, gb) == 0
    assert gb[0] == jit.grad(a, b)[1]


def test_two_dimensional_argument_agrees_with_jit(work):
    A = RNG.normal(size=(3, 4))
    jit = pyad.jit_grad(work.py.grid, argnums="all")
    g, v = np.zeros((3, 4)), work.ffi.new("double *")
    assert work.lib.work_grid_grad(work.d(A), 3, 4, v, work.d(g)) == 0
    jv, (jg,) = jit.value_and_grad(A)
    assert v[0] == jv
    np.testing.assert_array_equal(g, jg)


def test_linear_algebra_runs_in_the_library_and_raises_linalg_errors(work):
    """np.linalg's kernels are in the runtime the library links (self-contained)."""
    A, b = RNG.normal(size=(3, 3)) + 3 * np.eye(3), RNG.normal(size=3)
    jit = pyad.jit_grad(work.py.gauss, argnums="all")
    v, gA, gb = work.ffi.new("double *"), np.zeros((3, 3)), np.zeros(3)
    assert work.lib.work_gauss_grad(work.d(A), 3, 3, work.d(b), 3, v, work.d(gA),
                                    work.d(gb)) == 0
    jv, (jA, jb) = jit.value_and_grad(A, b)
    assert v[0] == jv
    np.testing.assert_array_equal(gA, jA)
    np.testing.assert_array_equal(gb, jb)
    singular = np.ones((3, 3))
    assert work.lib.work_gauss(work.d(singular), 3, 3, work.d(b), 3, v) == \
        work.lib.WORK_ERR_LINALG
    assert work.error().startswith("LinAlgError: Singular matrix (line ")


def test_matrix_products_give_the_bits_of_the_jit(work):
    """The matrix product kernel is in the runtime the library links: the same bits as the
    JIT's, in the value and in the gradient's products."""
    X, W = RNG.normal(size=(37, 20)), RNG.normal(size=(25, 20))
    jit = pyad.jit_grad(work.py.layer, argnums="all")
    v, gX, gW = work.ffi.new("double *"), np.zeros((37, 20)), np.zeros((25, 20))
    assert work.lib.work_layer_grad(work.d(X), 37, 20, work.d(W), 25, 20, v, work.d(gX),
                                    work.d(gW)) == 0
    jv, (jX, jW) = jit.value_and_grad(X, W)
    assert v[0] == jv
    np.testing.assert_array_equal(gX, jX)
    np.testing.assert_array_equal(gW, jW)


def test_array_result_and_its_vjp_agree_with_jit(work):
    lib, ffi = work.lib, work.ffi
    x, ct = RNG.normal(size=6), RNG.normal(size=6)
    jit = pyad.jit_grad(work.py.running, argnums="all")
    data, shape = ffi.new("double **"), ffi.new("int64_t[1]")
    assert lib.work_running(work.d(x), 6, data, shape) == 0
    assert shape[0] == 6
    np.testing.assert_array_equal(np.frombuffer(ffi.buffer(data[0], 6 * 8)), jit(x))
    lib.work_free(data[0])
    # the shape only (no allocation), then the vjp
    shape[0] = -1
    assert lib.work_running(work.d(x), 6, ffi.NULL, shape) == 0 and shape[0] == 6
    g = np.full(6, 5.0)
    assert lib.work_running_vjp(work.d(x), 6, work.d(ct), 6, data, shape, work.d(g)) == 0
    y, back = jit.pullback(x)
    np.testing.assert_array_equal(np.frombuffer(ffi.buffer(data[0], 6 * 8)), y)
    lib.work_free(data[0])
    np.testing.assert_array_equal(g, back(ct)[0])


def test_tuple_result_vjp_agrees_with_jit(work):
    lib, ffi = work.lib, work.ffi
    x, ct1 = RNG.normal(size=5), RNG.normal(size=5)
    jit = pyad.jit_grad(work.py.pair, argnums="all")
    y0, y1, shape, gs = ffi.new("double *"), ffi.new("double **"), ffi.new("int64_t[1]"), \
        ffi.new("double *")
    assert lib.work_pair(work.d(x), 5, 0.7, y0, y1, shape) == 0
    jy0, jy1 = jit(x, 0.7)
    assert y0[0] == jy0 and shape[0] == 5
    np.testing.assert_array_equal(np.frombuffer(ffi.buffer(y1[0], 40)), jy1)
    lib.work_free(y1[0])
    gx = np.zeros(5)
    assert lib.work_pair_vjp(work.d(x), 5, 0.7, -1.5, work.d(ct1), 5, ffi.NULL, ffi.NULL,
                             ffi.NULL, work.d(gx), gs) == 0
    _, back = jit.pullback(x, 0.7)
    jgx, jgs = back((-1.5, ct1))
    np.testing.assert_array_equal(gx, jgx)
    assert gs[0] == jgs


def test_strided_array_result_is_copied_out(work):
    lib, ffi = work.lib, work.ffi
    A = np.arange(6.0).reshape(2, 3)
    data, shape = ffi.new("double **"), ffi.new("int64_t[2]")
    assert lib.work_flip(work.d(A), 2, 3, data, shape) == 0
    assert list(shape) == [3, 2]
    np.testing.assert_array_equal(np.frombuffer(ffi.buffer(data[0], 48)).reshape(3, 2), A.T)
    lib.work_free(data[0])
    ct, g = RNG.normal(size=(3, 2)), np.zeros((2, 3))
    assert lib.work_flip_vjp(work.d(A), 2, 3, work.d(ct), 3, 2, ffi.NULL, ffi.NULL,
                             work.d(g)) == 0
    np.testing.assert_array_equal(g, ct.T)


def test_recursive_function_agrees_with_jit_and_limits_its_depth(work):
    lib, ffi = work.lib, work.ffi
    out, g = ffi.new("double *"), ffi.new("double *")
    f = pyad.jit_grad(work.py.power, argnums="all")
    assert lib.work_power(1.1, 7, out) == 0 and out[0] == f(1.1, 7)
    assert lib.work_power_grad(1.1, 7, out, g) == 0
    assert (out[0], g[0]) == (f(1.1, 7), f.grad(1.1, 7)[0])
    assert lib.work_power(1.0, 10 ** 9, out) == 5  # WORK_ERR_RECURSION, no stack overflow
    assert work.error().startswith("RecursionError: maximum recursion depth exceeded")


def test_recursive_function_with_arrays_agrees_with_jit(work):
    lib, ffi = work.lib, work.ffi
    x, g = np.array([0.5, 1.5, -2.0, 3.0, 0.25]), np.zeros(5)
    out = ffi.new("double *")
    f = pyad.jit_grad(work.py.array_recursion)
    assert lib.work_array_recursion(work.d(x), 5, 3, out) == 0 and out[0] == f(x, 3)
    assert lib.work_array_recursion_grad(work.d(x), 5, 3, out, work.d(g)) == 0
    np.testing.assert_array_equal(g, f.grad(x, 3))
    np.testing.assert_allclose(g, 3 * x ** 2 + 2 * x, rtol=1e-14)
    assert lib.work_array_recursion(work.d(x), 5, 10 ** 9, out) == 5
    assert work.error().startswith("RecursionError: maximum recursion depth exceeded")


def test_int_and_bool_results_and_arguments(work):
    lib, ffi = work.lib, work.ffi
    x = np.array([0.5, 2.0, -1.0, 3.0])
    n, b = ffi.new("int64_t *"), ffi.new("bool *")
    assert lib.work_count(work.d(x), 4, 0.9, n) == 0 and n[0] == 2
    assert not hasattr(lib, "work_count_grad") and "work_count_vjp" not in work.header
    for v, flag in [(1.0, True), (1.0, False), (-1.0, False)]:
        assert lib.work_sign_test(v, flag, b) == 0
        assert b[0] == pyad.jit_grad(work.py.sign_test, argnums="all")(v, flag)


def test_functions_named_like_libc_symbols(work):
    out, g = work.ffi.new("double *"), work.ffi.new("double *")
    assert work.lib.work_exp(0.5, out) == 0 and out[0] == pyad.jit_grad(work.py.exp, argnums="all")(0.5)
    assert work.lib.work_exp_grad(0.5, work.ffi.NULL, g) == 0
    assert g[0] == pyad.jit_grad(work.py.exp, argnums="all").grad(0.5)[0]
    assert work.lib.work_main_grad(3.0, out, g) == 0 and (out[0], g[0]) == (18.0, 12.0)
    assert work.lib.work_decorated_grad(2.0, out, g) == 0 and (out[0], g[0]) == (8.0, 12.0)


def test_one_function_with_two_signatures(work):
    v = work.ffi.new("double *")
    x, A = np.array([3.0, 4.0]), np.array([[1.0, 2.0], [2.0, 4.0]])
    assert work.lib.work_norm__f64a1(work.d(x), 2, v) == 0 and v[0] == 5.0
    assert work.lib.work_norm__f64a2(work.d(A), 2, 2, v) == 0 and v[0] == 5.0
    g = np.zeros((2, 2))
    assert work.lib.work_norm__f64a2_grad(work.d(A), 2, 2, v, work.d(g)) == 0
    np.testing.assert_allclose(g, A / 5.0, rtol=1e-15)


def test_functions_calling_helpers_agree_with_jit(work):
    """Plain helpers (inlined), an exported function and a jit_grad function as callees."""
    lib, ffi = work.lib, work.ffi
    x = RNG.normal(size=5)
    jit = pyad.jit_grad(work.py.calls, argnums="all")
    out, v, gk = (ffi.new("double *") for _ in range(3))
    assert lib.work_calls(work.d(x), 5, 0.9, out) == 0 and out[0] == jit(x, 0.9)
    gx = np.zeros(5)
    assert lib.work_calls_grad(work.d(x), 5, 0.9, v, work.d(gx), gk) == 0
    jv, (jgx, jgk) = jit.value_and_grad(x, 0.9)
    assert v[0] == jv and gk[0] == jgk
    np.testing.assert_array_equal(gx, jgx)
    # a helper returning a tuple, under a vjp
    ct = RNG.normal(size=5)
    data, shape = ffi.new("double **"), ffi.new("int64_t[1]")
    assert lib.work_scaled_vjp(work.d(x), 5, 0.9, work.d(ct), 5, data, shape, work.d(gx),
                               gk) == 0
    y, back = pyad.jit_grad(work.py.scaled, argnums="all").pullback(x, 0.9)
    np.testing.assert_array_equal(np.frombuffer(ffi.buffer(data[0], 40)), y)
    lib.work_free(data[0])
    jgx, jgc = back(ct)
    np.testing.assert_array_equal(gx, jgx)
    assert gk[0] == jgc


def test_run_time_errors_return_status_and_message(work):
    lib, ffi = work.lib, work.ffi
    out = ffi.new("double *")
    x = np.zeros(4)
    assert lib.work_ratio(1.0, 0.0, out) == 1  # WORK_ERR_ZERO_DIVISION
    line = WORK.splitlines().index("    return a / b") + 1
    assert work.error() == f"ZeroDivisionError: float division by zero (line {line} of work.py)"
    assert lib.work_ratio(float("nan"), 1.0, out) == lib.WORK_ERR_ASSERTION  # the user's assert
    line = WORK.splitlines().index('    assert a == a, "a is nan"') + 1
    assert work.error() == f"AssertionError: a is nan (line {line} of work.py)"
    assert lib.work_dot(work.d(x), 4, work.d(x), 4, 9, out) == 3  # WORK_ERR_INDEX
    assert work.error().startswith("IndexError: index 4 is out of bounds for axis 0 with size 4")
    assert lib.work_dot(work.d(x), 4, work.d(x), -2, 1, out) == 2  # WORK_ERR_VALUE
    assert work.error() == "ValueError: negative extent -2 on axis 0 of y"
    assert lib.work_dot(ffi.NULL, 3, work.d(x), 4, 1, out) == 2
    assert work.error() == "ValueError: x is NULL but has 3 elements"
    assert lib.work_dot(ffi.NULL, 0, ffi.NULL, 0, 0, out) == 0 and out[0] == 0.0
    g = np.zeros(5)
    assert lib.work_running_vjp(work.d(x), 4, work.d(g), 5, ffi.NULL, ffi.NULL, work.d(x)) == 2
    assert work.error() == ("ValueError: cotangent ct_out has shape (5,) but the result out has "
                            "shape (4,)")
    assert lib.work_grid_grad(work.d(x), 2, 2, out, ffi.NULL) == 2
    assert work.error() == "ValueError: grad_A is NULL but has 4 elements"
    assert lib.work_first(1 << 61, out) == 4  # WORK_ERR_MEMORY
    line = WORK.splitlines().index("    a = np.zeros(n)") + 1
    assert work.error() == f"MemoryError: array is too large (line {line} of work.py)"
    assert lib.work_first(-1, out) == 2
    assert work.error().startswith("ValueError: negative dimensions are not allowed")
    assert lib.work_first(0, out) == 3
    # codes in the header are the runtime's pyad_error_kind values
    assert (lib.WORK_OK, lib.WORK_ERR_ZERO_DIVISION, lib.WORK_ERR_VALUE, lib.WORK_ERR_INDEX,
            lib.WORK_ERR_MEMORY) == (0, 1, 2, 3, 4)


def test_calls_from_threads_are_independent(work):
    lib, ffi = work.lib, work.ffi
    xs = [RNG.normal(size=50) for _ in range(4)]
    expect = [pyad.jit_grad(work.py.dot_loop, argnums="all")(x, x, 50) for x in xs]
    errors: dict[int, str] = {}
    bad: list = []

    def run(k: int) -> None:
        out = ffi.new("double *")
        for _ in range(200):
            if lib.work_dot(work.d(xs[k]), 50, work.d(xs[k]), 50, 50, out) != 0 \
                    or out[0] != expect[k]:
                bad.append(k)
        if k % 2:
            lib.work_ratio(1.0, 0.0, out)
        errors[k] = ffi.string(lib.work_last_error()).decode()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad
    assert errors[1].startswith("ZeroDivisionError") and errors[3].startswith("ZeroDivision")
    assert errors[0] == errors[2] == ""


