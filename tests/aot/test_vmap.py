"""`pyad compile --vmap`: the batched functions of a C library (NAME_f_vmap, _vmap_grad,
_vmap_grad_sum) against the library's own non-batched functions called item by item: the
same bits per item on 1, 2 and 3 threads, sums to rounding, shared arguments (batch step 0),
array and tuple results, bool and int values, errors named by their item, argument checks,
$PYAD_NUM_THREADS, the symbols, the header as C and C++, and a static C program.

The library is compiled once for the module (fixture)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pyad.codegen.aot.header import cdef

from .tools import CXX, cc, nm, pyad_compile, requires_toolchain

# one worker compiles the module's libraries (fixtures) for all its tests (tests/conftest.py)
pytestmark = [requires_toolchain, pytest.mark.xdist_group("aot_vmap")]

SOURCE = '''\
import numpy as np


def loss(W, b, x, y, scale):
    h = np.tanh(W @ x + b)
    r = np.sum(h * h) - y
    return scale * r * r


def resid(x, a, k):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = a * x[i] * x[i] - k
    return out, np.sum(out), k + 1


def pick(x, i):
    return x[i] * x[0]


def ramp(n):
    return np.zeros(n) + 1.0


def sign_test(x, flag):
    return (x > 0.0) == flag


def root(x):
    return x[0] * np.sqrt(x[1])


def soft(x, c):
    return x[0] * x[0] + c * np.sqrt(x[1])
'''

SIGS = [("loss", "f64(f64[:, :], f64[:], f64[:], f64, f64)"),
        ("resid", "(f64[:], f64, i64)(f64[:], f64, i64)"),
        ("pick", "f64(f64[:], i64)"),
        ("ramp", "f64[:](i64)"),
        ("sign_test", "bool(f64, bool)"),
        ("root", "f64(f64[:])"),
        ("soft", "f64(f64[:], f64)")]

EXPORTS = {"vm_last_error", "vm_free", "vm_loss", "vm_loss_grad", "vm_loss_vmap",
           "vm_loss_vmap_grad", "vm_loss_vmap_grad_sum", "vm_resid", "vm_resid_vjp",
           "vm_resid_vmap", "vm_pick", "vm_pick_grad", "vm_pick_vmap", "vm_pick_vmap_grad",
           "vm_pick_vmap_grad_sum", "vm_ramp", "vm_ramp_vmap", "vm_sign_test",
           "vm_sign_test_vmap", "vm_root", "vm_root_grad", "vm_root_vmap", "vm_root_vmap_grad",
           "vm_root_vmap_grad_sum", "vm_soft", "vm_soft_grad", "vm_soft_vmap",
           "vm_soft_vmap_grad", "vm_soft_vmap_grad_sum"}

RNG = np.random.default_rng(20)
THREADS = [1, 2, 3]


class Lib:
    def __init__(self, out: Path) -> None:
        import cffi
        self.out = out
        self.header = (out / "vm.h").read_text()
        self.ffi = cffi.FFI()
        self.ffi.cdef(cdef(self.header))
        self.lib = self.ffi.dlopen(str(out / "libvm.so"))

    def p(self, a: np.ndarray):
        kind = {np.float64: "double[]", np.int64: "int64_t[]", np.bool_: "bool[]"}
        return self.ffi.from_buffer(kind[a.dtype.type], a)

    def error(self) -> str:
        return self.ffi.string(self.lib.vm_last_error()).decode()


@pytest.fixture(scope="module")
def vm(tmp_path_factory) -> Lib:
    tmp = tmp_path_factory.mktemp("vm")
    (tmp / "vm.py").write_text(SOURCE)
    args = [f"vm.py:{','.join(f for f, _ in SIGS)}", "--vmap"]
    for _, s in SIGS:
        args += ["--sig", s]
    proc = pyad_compile(*args, "-o", str(tmp / "out"), cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # the wrappers compile without a warning
    return Lib(tmp / "out")


def _mlp_batch(n: int):
    W, b = RNG.normal(size=(3, 4)), RNG.normal(size=3)
    X, y = RNG.normal(size=(n, 4)), RNG.normal(size=n)
    return W, b, X, y, 0.5


def _loss_items(vm: Lib, W, b, X, y, scale):
    """Values and gradients of the non-batched vm_loss_grad, item by item."""
    lib, ffi = vm.lib, vm.ffi
    vals, gW, gb, gx, gy, gs = [], [], [], [], [], []
    for i in range(len(X)):
        v, dy, ds = ffi.new("double *"), ffi.new("double *"), ffi.new("double *")
        a, c, d = np.empty((3, 4)), np.empty(3), np.empty(4)
        assert lib.vm_loss_grad(vm.p(W), 3, 4, vm.p(b), 3, vm.p(X[i]), 4, y[i], scale, v,
                                vm.p(a), vm.p(c), vm.p(d), dy, ds) == 0
        vals.append(v[0]), gW.append(a), gb.append(c), gx.append(d), gy.append(dy[0])
        gs.append(ds[0])
    return np.array(vals), np.array(gW), np.array(gb), np.array(gx), np.array(gy), np.array(gs)


def _same_bits(a, b) -> bool:
    return np.array_equal(np.asarray(a).view(np.int64), np.asarray(b).view(np.int64))


def test_exported_symbols_and_header(vm):
    defined = {n for _, n in nm("-D", "--defined-only", str(vm.out / "libvm.so"))}
    assert defined == EXPORTS
    declared = set(re.findall(r"^(?:int |const char \*|void )(vm_\w+)\(", vm.header, re.M))
    assert declared == EXPORTS
    assert "libvm.a -lm -pthread (static)" in vm.header
    assert "int vm_loss_vmap_grad_sum(int64_t nbatch, int32_t nthreads, const double *W," \
        in vm.header


@pytest.mark.parametrize("threads", THREADS)
def test_primal_per_item_has_the_bits_of_the_plain_call(vm, threads):
    lib, ffi = vm.lib, vm.ffi
    W, b, X, y, scale = _mlp_batch(7)
    s = np.array([scale])
    out = np.full(7, np.nan)
    # W, b and scale are shared (batch step 0), x and y per item
    assert lib.vm_loss_vmap(7, threads, vm.p(W), 3, 4, 0, vm.p(b), 3, 0, vm.p(X), 4, 4,
                            vm.p(y), 1, vm.p(s), 0, vm.p(out)) == 0
    expect = _loss_items(vm, W, b, X, y, scale)[0]
    assert _same_bits(out, expect)


@pytest.mark.parametrize("threads", THREADS)
def test_gradient_per_item_has_the_bits_of_the_plain_call(vm, threads):
    lib, ffi = vm.lib, vm.ffi
    W, b, X, y, scale = _mlp_batch(9)
    s = np.array([scale])
    value, gy, gs = np.full(9, np.nan), np.full(9, np.nan), np.full(9, np.nan)
    gW, gb, gx = np.full((9, 3, 4), np.nan), np.full((9, 3), np.nan), np.full((9, 4), np.nan)
    assert lib.vm_loss_vmap_grad(9, threads, vm.p(W), 3, 4, 0, vm.p(b), 3, 0, vm.p(X), 4, 4,
                                 vm.p(y), 1, vm.p(s), 0, vm.p(value), vm.p(gW), vm.p(gb),
                                 vm.p(gx), vm.p(gy), vm.p(gs)) == 0
    for got, expect in zip([value, gW, gb, gx, gy, gs], _loss_items(vm, W, b, X, y, scale)):
        assert _same_bits(got, expect)
    # NULL for the value and the scalar derivatives: not written, the rest the same
    gx2 = np.full((9, 4), np.nan)
    assert lib.vm_loss_vmap_grad(9, threads, vm.p(W), 3, 4, 0, vm.p(b), 3, 0, vm.p(X), 4, 4,
                                 vm.p(y), 1, vm.p(s), 0, ffi.NULL, vm.p(gW), vm.p(gb),
                                 vm.p(gx2), ffi.NULL, ffi.NULL) == 0
    assert _same_bits(gx2, gx)


def test_every_argument_batched_with_its_own_step(vm):
    """Per-item W and b too, and items laid out with gaps (a step larger than the item)."""
    lib = vm.lib
    n = 5
    Ws, bs = RNG.normal(size=(n, 3, 4)), RNG.normal(size=(n, 2, 3))  # b: every other row
    X, y, sc = RNG.normal(size=(n, 4)), RNG.normal(size=(n, 2)), RNG.normal(size=n)
    value, gW = np.empty(n), np.empty((n, 3, 4))
    gb, gx = np.empty((n, 3)), np.empty((n, 4))
    assert lib.vm_loss_vmap_grad(n, 2, vm.p(Ws), 3, 4, 12, vm.p(bs), 3, 6, vm.p(X), 4, 4,
                                 vm.p(y), 2, vm.p(sc), 1, vm.p(value), vm.p(gW), vm.p(gb),
                                 vm.p(gx), vm.ffi.NULL, vm.ffi.NULL) == 0
    for i in range(n):
        v, a, c, d = vm.ffi.new("double *"), np.empty((3, 4)), np.empty(3), np.empty(4)
        assert lib.vm_loss_grad(vm.p(Ws[i]), 3, 4, vm.p(bs[i, 0].copy()), 3, vm.p(X[i]), 4,
                                y[i, 0], sc[i], v, vm.p(a), vm.p(c), vm.p(d), vm.ffi.NULL,
                                vm.ffi.NULL) == 0
        assert _same_bits([v[0]], value[i:i + 1])
        assert _same_bits(a, gW[i]) and _same_bits(c, gb[i]) and _same_bits(d, gx[i])


@pytest.mark.parametrize("threads", THREADS + [64])  # 64: one thread per item at most
def test_gradient_summed_over_the_batch(vm, threads):
    lib, ffi = vm.lib, vm.ffi
    W, b, X, y, scale = _mlp_batch(11)
    s = np.array([scale])
    value, gy, gs = ffi.new("double *"), ffi.new("double *"), ffi.new("double *")
    gW, gb, gx = np.full((3, 4), np.nan), np.full(3, np.nan), np.full(4, np.nan)
    assert lib.vm_loss_vmap_grad_sum(11, threads, vm.p(W), 3, 4, 0, vm.p(b), 3, 0, vm.p(X), 4,
                                     4, vm.p(y), 1, vm.p(s), 0, value, vm.p(gW), vm.p(gb),
                                     vm.p(gx), gy, gs) == 0
    # the items' values and gradients added in item order, whatever the number of threads
    for got, items in zip([value[0], gW, gb, gx, gy[0], gs[0]],
                          _loss_items(vm, W, b, X, y, scale)):
        total = items[0].copy()
        for item in items[1:]:
            total += item
        assert _same_bits(got, total)
        np.testing.assert_allclose(got, items.sum(axis=0), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("threads", [1, 2])
def test_python_vmap_gives_the_bits_of_the_library(vm, threads, tmp_path):
    """The same kernels, the same order of additions: pyad.vmap in this process and the C
    library's batched functions agree bit for bit, per item and summed."""
    import importlib.util

    import pyad
    (tmp_path / "vm_py.py").write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("vm_py", tmp_path / "vm_py.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    vg = pyad.value_and_grad(module.loss, argnums=(0, 1, 2, 3, 4))
    axes = (None, None, 0, 0, None)
    lib, ffi = vm.lib, vm.ffi
    W, b, X, y, scale = _mlp_batch(9)
    value, per = pyad.vmap(vg, in_axes=axes, num_threads=threads)(W, b, X, y, scale)
    for got, want in zip([value, *per], _loss_items(vm, W, b, X, y, scale)):
        assert _same_bits(got, want)
    total_value, total = pyad.vmap(vg, in_axes=axes, reduce="sum", num_threads=threads)(
        W, b, X, y, scale)
    s = np.array([scale])
    v, gy, gs = ffi.new("double *"), ffi.new("double *"), ffi.new("double *")
    gW, gb, gx = np.empty((3, 4)), np.empty(3), np.empty(4)
    assert lib.vm_loss_vmap_grad_sum(9, threads, vm.p(W), 3, 4, 0, vm.p(b), 3, 0, vm.p(X), 4,
                                     4, vm.p(y), 1, vm.p(s), 0, v, vm.p(gW), vm.p(gb),
                                     vm.p(gx), gy, gs) == 0
    for got, want in zip([total_value, *total], [v[0], gW, gb, gx, gy[0], gs[0]]):
        assert _same_bits(got, want)


def test_a_nan_gradient_item_makes_the_sum_nan(vm):
    """An item whose gradient is nan (sqrt of a negative number) does not drop the others:
    each item has a zeroed gradient buffer of its own (a nan makes the kernel start over)."""
    lib, ffi = vm.lib, vm.ffi
    X = np.array([[1.0, 4.0], [2.0, 9.0], [3.0, -1.0], [1.0, 16.0]])
    per, total, value = np.empty((4, 2)), np.empty(2), ffi.new("double *")
    for threads in (1, 2):
        assert lib.vm_root_vmap_grad(4, threads, vm.p(X), 2, 2, ffi.NULL, vm.p(per)) == 0
        assert np.isnan(per[2]).all() and per[[0, 1, 3]].tolist() == [
            [2.0, 0.25], [3.0, 1.0 / 3.0], [4.0, 0.125]]
        assert lib.vm_root_vmap_grad_sum(4, threads, vm.p(X), 2, 2, value, vm.p(total)) == 0
        assert np.isnan(total).all() and np.isnan(value[0])
        keep = X[[0, 1, 3]].copy()
        assert lib.vm_root_vmap_grad_sum(3, threads, vm.p(keep), 2, 2, value, vm.p(total)) == 0
        assert total.tolist() == [2.0 + 3.0 + 4.0, 0.25 + 1.0 / 3.0 + 0.125]


def test_an_item_that_needs_strong_zeros_keeps_the_others(vm):
    """Item 2 has c = 0 and sqrt at 0: its gradient needs strong zeros (0 * inf), which the
    kernel finds by a nan and computes again from a zeroed buffer. The sum still has every
    item (one buffer shared by a thread's items would keep only the items from 2 on)."""
    lib, ffi = vm.lib, vm.ffi
    X = np.array([[1.0, 4.0], [2.0, 9.0], [3.0, 0.0], [1.0, 16.0]])
    c = np.array([1.0, 1.0, 0.0, 1.0])
    per, total = np.empty((4, 2)), np.empty(2)
    for threads in (1, 2):
        assert lib.vm_soft_vmap_grad(4, threads, vm.p(X), 2, 2, vm.p(c), 1, ffi.NULL,
                                     vm.p(per), ffi.NULL) == 0
        assert per.tolist() == [[2.0, 0.25], [4.0, 1.0 / 6.0], [6.0, 0.0], [2.0, 0.125]]
        assert lib.vm_soft_vmap_grad_sum(4, threads, vm.p(X), 2, 2, vm.p(c), 1, ffi.NULL,
                                         vm.p(total), ffi.NULL) == 0
        assert total.tolist() == [14.0, ((0.25 + 1.0 / 6.0) + 0.0) + 0.125]


def test_a_large_gradient_is_summed_in_chunks(vm):
    """A gradient of 2**20 elements per item: one item per thread at a time, the same
    sum, and an error in a later chunk named by its index in the whole batch."""
    lib, ffi = vm.lib, vm.ffi
    x = RNG.normal(size=1 << 20)
    idx = np.array([5, 0, 7, 1 << 20, 3, 5], np.int64)
    total = np.full(1 << 20, np.nan)
    expect = np.zeros(1 << 20)
    for i in (5, 0, 7, 3):
        expect[i] += x[0]
        expect[0] += x[i]
    ok = idx[[0, 1, 2, 4, 5]].copy()
    assert lib.vm_pick_vmap_grad_sum(5, 2, vm.p(x), 1 << 20, 0, vm.p(ok), 1, ffi.NULL,
                                     vm.p(total)) == 0
    expect[5] += x[0]
    expect[0] += x[5]
    np.testing.assert_allclose(total, expect, rtol=1e-15, atol=0)
    assert lib.vm_pick_vmap_grad_sum(6, 2, vm.p(x), 1 << 20, 0, vm.p(idx), 1, ffi.NULL,
                                     vm.p(total)) == 3
    assert vm.error().endswith("(batch element 3)")


def test_array_and_tuple_results(vm):
    lib, ffi = vm.lib, vm.ffi
    X, a, k = RNG.normal(size=(6, 5)), RNG.normal(size=6), np.arange(6, dtype=np.int64)
    for threads in (1, 2):
        out0, shape = ffi.new("double **"), ffi.new("int64_t[1]")
        out1, out2 = np.empty(6), np.empty(6, np.int64)
        assert lib.vm_resid_vmap(6, threads, vm.p(X), 5, 5, vm.p(a), 1, vm.p(k), 1, out0,
                                 shape, vm.p(out1), vm.p(out2)) == 0
        assert shape[0] == 5
        got = np.frombuffer(ffi.buffer(out0[0], 6 * 5 * 8), np.float64).reshape(6, 5).copy()
        lib.vm_free(out0[0])
        for i in range(6):
            e0, s, e1, e2 = ffi.new("double **"), ffi.new("int64_t[1]"), ffi.new("double *"), \
                ffi.new("int64_t *")
            assert lib.vm_resid(vm.p(X[i]), 5, a[i], k[i], e0, s, e1, e2) == 0
            item = np.frombuffer(ffi.buffer(e0[0], 5 * 8), np.float64).copy()
            lib.vm_free(e0[0])
            assert _same_bits(got[i], item) and _same_bits(out1[i:i + 1], [e1[0]])
            assert out2[i] == e2[0] == k[i] + 1
    # out0 = NULL: the extents only; every other result may be NULL too
    shape = ffi.new("int64_t[1]")
    assert lib.vm_resid_vmap(6, 2, vm.p(X[:, :3].copy()), 3, 3, vm.p(a), 1, vm.p(k), 0,
                             ffi.NULL, shape, ffi.NULL, ffi.NULL) == 0
    assert shape[0] == 3


def test_result_shapes_must_agree(vm):
    lib, ffi = vm.lib, vm.ffi
    ns = np.array([4, 4, 4, 5, 4], np.int64)
    out0, shape = ffi.new("double **"), ffi.new("int64_t[1]")
    assert lib.vm_ramp_vmap(5, 2, vm.p(ns), 1, out0, shape) == 2  # VM_ERR_VALUE
    assert vm.error() == ("ValueError: the shape of result array differs from the first "
                          "element's: a batched function must return results of one shape "
                          "(batch element 3)")
    assert lib.vm_ramp_vmap(3, 2, vm.p(ns), 1, out0, shape) == 0 and shape[0] == 4
    assert np.frombuffer(ffi.buffer(out0[0], 12 * 8), np.float64).tolist() == [1.0] * 12
    lib.vm_free(out0[0])


def test_int_and_bool_values(vm):
    lib = vm.lib
    x = np.array([-1.0, 2.0, 0.5, -0.0])
    flags = np.array([True, True, False, False])
    out = np.zeros(4, np.bool_)
    assert lib.vm_sign_test_vmap(4, 2, vm.p(x), 1, vm.p(flags), 1, vm.p(out)) == 0
    assert out.tolist() == [False, True, False, True]
    assert out.view(np.uint8).max() == 1


@pytest.mark.parametrize("threads", [1, 2])
def test_an_error_names_the_first_failing_item(vm, threads):
    lib, ffi = vm.lib, vm.ffi
    x = RNG.normal(size=4)
    idx = np.array([0, 1, 9, 3, 2, 1, 7, 0], np.int64)  # items 2 and 6 fail
    line = SOURCE.splitlines().index("    return x[i] * x[0]") + 1
    out, g = np.empty(8), np.empty((8, 4))
    assert lib.vm_pick_vmap(8, threads, vm.p(x), 4, 0, vm.p(idx), 1, vm.p(out)) == 3
    assert vm.error() == (f"IndexError: index 9 is out of bounds for axis 0 with size 4 "
                          f"(line {line} of vm.py) (batch element 2)")
    assert lib.vm_pick_vmap_grad(8, threads, vm.p(x), 4, 0, vm.p(idx), 1, ffi.NULL, vm.p(g)) \
        == 3
    assert vm.error().endswith("(batch element 2)")
    assert lib.vm_pick_vmap_grad_sum(8, threads, vm.p(x), 4, 0, vm.p(idx[3:]), 1, ffi.NULL,
                                     vm.p(g[0])) == 3
    assert vm.error().startswith("IndexError: index 7 is out")
    assert vm.error().endswith("(batch element 3)")
    # a later success does not clear the message
    assert lib.vm_pick_vmap(2, threads, vm.p(x), 4, 0, vm.p(idx), 1, vm.p(out)) == 0
    assert vm.error().endswith("(batch element 3)")


def test_arguments_are_checked(vm):
    lib, ffi = vm.lib, vm.ffi
    x, idx, out = np.zeros(4), np.zeros(3, np.int64), np.empty(3)
    assert lib.vm_pick_vmap(0, 1, vm.p(x), 4, 0, vm.p(idx), 1, vm.p(out)) == 2
    assert vm.error() == "ValueError: the batch size is 0; it must be at least 1"
    assert lib.vm_pick_vmap(3, 1, vm.p(x), -4, 0, vm.p(idx), 1, vm.p(out)) == 2
    assert vm.error() == "ValueError: negative extent -4 on axis 0 of x"
    assert lib.vm_pick_vmap(3, 1, ffi.NULL, 4, 0, vm.p(idx), 1, vm.p(out)) == 2
    assert vm.error() == "ValueError: x is NULL but has 4 elements"
    assert lib.vm_pick_vmap(3, 1, vm.p(x), 4, 0, ffi.NULL, 1, vm.p(out)) == 2
    assert vm.error() == "ValueError: i is NULL"
    assert lib.vm_pick_vmap_grad(3, 1, vm.p(x), 4, 0, vm.p(idx), 1, ffi.NULL, ffi.NULL) == 2
    assert vm.error() == "ValueError: grad_x is NULL but has 12 elements"
    assert lib.vm_pick_vmap_grad_sum(3, 1, vm.p(x), 4, 0, vm.p(idx), 1, ffi.NULL,
                                     ffi.NULL) == 2
    assert vm.error() == "ValueError: grad_x is NULL but has 4 elements"


def test_default_thread_count_reads_the_environment(vm, monkeypatch):
    lib = vm.lib
    x, idx = RNG.normal(size=4), np.array([3, 2, 1, 0, 1], np.int64)
    expect, out = np.empty(5), np.empty(5)
    assert lib.vm_pick_vmap(5, 1, vm.p(x), 4, 0, vm.p(idx), 1, vm.p(expect)) == 0
    for value in ("2", " 3 ", None):
        if value is None:
            monkeypatch.delenv("PYAD_NUM_THREADS", raising=False)
        else:
            monkeypatch.setenv("PYAD_NUM_THREADS", value)
        out[:] = np.nan
        assert lib.vm_pick_vmap(5, 0, vm.p(x), 4, 0, vm.p(idx), 1, vm.p(out)) == 0
        assert _same_bits(out, expect)
    for value, message in [("two", "PYAD_NUM_THREADS='two' is not a number of threads"),
                           ("0", "PYAD_NUM_THREADS='0': the number of threads must be >= 1")]:
        monkeypatch.setenv("PYAD_NUM_THREADS", value)
        assert lib.vm_pick_vmap(5, -1, vm.p(x), 4, 0, vm.p(idx), 1, vm.p(out)) == 2
        assert vm.error() == f"ValueError: {message}"  # as pyad.vmap says it
        assert lib.vm_pick_vmap(5, 2, vm.p(x), 4, 0, vm.p(idx), 1, vm.p(out)) == 0  # not read


def test_batched_calls_from_several_threads_at_once(vm):
    """Each batched call starts workers of its own; calls on other threads do not mix in."""
    import threading
    batches = [_mlp_batch(8) for _ in range(3)]
    expect = [_loss_items(vm, *bt)[3] for bt in batches]
    bad: list = []

    def run(k: int) -> None:
        W, b, X, y, scale = batches[k]
        s = np.array([scale])
        for _ in range(20):
            gW, gb, gx = np.empty((8, 3, 4)), np.empty((8, 3)), np.empty((8, 4))
            st = vm.lib.vm_loss_vmap_grad(8, 2, vm.p(W), 3, 4, 0, vm.p(b), 3, 0, vm.p(X), 4, 4,
                                          vm.p(y), 1, vm.p(s), 0, vm.ffi.NULL, vm.p(gW),
                                          vm.p(gb), vm.p(gx), vm.ffi.NULL, vm.ffi.NULL)
            if st != 0 or not _same_bits(gx, expect[k]):
                bad.append(k)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not bad


PROGRAM = r'''
#include <math.h>
#include <stdio.h>
#include "vm.h"

int main(void) {
    double x[3][4], g[3][4], gs[4] = {0}, v[3], one, go[4];
    int64_t idx[3] = {1, 2, 3};
    int i, k, bad = 0;
    for (i = 0; i < 3; i++)
        for (k = 0; k < 4; k++) x[i][k] = 0.5 + i - 0.25 * k;
    if (vm_pick_vmap_grad(3, 2, &x[0][0], 4, 4, idx, 1, v, &g[0][0]) != VM_OK ||
        vm_pick_vmap_grad_sum(3, 2, &x[0][0], 4, 4, idx, 1, &one, gs) != VM_OK) {
        printf("%s\n", vm_last_error());
        return 1;
    }
    for (i = 0; i < 3; i++) {
        double w;
        if (vm_pick_grad(x[i], 4, idx[i], &w, go) != VM_OK) return 1;
        bad |= w != v[i];
        for (k = 0; k < 4; k++) bad |= go[k] != g[i][k];
    }
    for (k = 0; k < 4; k++) bad |= fabs(gs[k] - (g[0][k] + g[1][k] + g[2][k])) > 1e-12;
    bad |= fabs(one - (v[0] + v[1] + v[2])) > 1e-12;
    printf(bad ? "FAIL\n" : "ok\n");
    return bad;
}
'''


def test_static_c_program_and_header_as_cpp(vm, tmp_path):
    main = tmp_path / "main.c"
    main.write_text(PROGRAM)
    exe = tmp_path / "main"
    cc("-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", str(vm.out), str(main),
       str(vm.out / "libvm.a"), "-lm", "-pthread", "-o", str(exe))
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert (proc.returncode, proc.stdout) == (0, "ok\n"), proc.stdout + proc.stderr
    if CXX:
        cpp = tmp_path / "use.cpp"
        cpp.write_text('#include "vm.h"\nint main() { double x = 1.0; int64_t i = 0; '
                       'double v; return vm_pick_vmap(1, 1, &x, 1, 0, &i, 0, &v) != VM_OK; }\n')
        subprocess.run([CXX, "-std=c++11", "-Wall", "-Wextra", "-pedantic", "-Werror",
                        "-fsyntax-only", "-I", str(vm.out), str(cpp)], check=True)
