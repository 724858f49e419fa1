"""The native call path of array signatures (codegen/python/wrap_arrays.py): calls with NumPy
arrays go straight from an LLVM-generated CPython wrapper to the kernel.

Checked here: results through the native path equal those of the cffi path (pycall, the
slow path kept for processes where numpy's layout cannot be verified), of the IR interpreter
and of CPython, for many layouts and dtypes; the native path is really taken (the Python
dispatcher is not called) and arrays it cannot read in place go to the dispatcher, which
converts them; errors are unchanged; no references or memory leak, on success and on error;
threads."""
from __future__ import annotations

import gc
import pickle
import sys
import tracemalloc

import numpy as np
import pytest

import pyad
from pyad.api import arrays as api_arrays
from pyad.api.check import interp_value_and_grad
from pyad.codegen import build
from pyad.codegen.python import callables
from pyad.codegen.python import wrap as pywrap, wrap_arrays as pywrap_arrays

from ..concurrency import run_together

pytestmark = pytest.mark.skipif(pywrap_arrays.NUMPY_LAYOUT is None,
                                reason="numpy's object layout is not verified here")


# ------------------------------------------------------------------------------- functions
def weighted_sq(x, w, a):
    s = 0.0
    for i in range(len(x)):
        s += w[i] * (x[i] - a) ** 2
    return s


def frob_mixed(A, k):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * A[i, j] * k
    return s


def cube_sum(T):
    return np.sum(T * T)


def count_true(b, v):
    n = 0
    for i in range(len(b)):
        if b[i]:
            n += v[i]
    return n


def results(x, A):
    """Array, view and scalar results in a nested tuple."""
    return (x * 2.0, (A.T, np.sum(A))), A[0]


def scaled(x):
    return 3.0 * x


def int_bool_results(x, k):
    return x > 0.0, k * np.ones(len(x), dtype=int)


def views3(T):
    """3-D results that are strided views of the argument (copied by loops, not memcpy)."""
    return T.T, T[1], T[1:]


def bounded(x, i):
    return x[i] * 2.0


def broadcast(x, y):
    return np.sum(x + y)


# ------------------------------------------------------------------------------- helpers
def layouts(a: np.ndarray) -> dict:
    """`a`'s values in several memory layouts (views into larger buffers where possible)."""
    out = {"contiguous": a.copy(), "fortran": np.asfortranarray(a)}
    big = np.full(tuple(2 * s + 1 for s in a.shape), np.nan if a.dtype.kind == "f" else 7,
                  dtype=a.dtype)
    strided = big[tuple(slice(1, 1 + 2 * s, 2) for s in a.shape)]
    strided[...] = a
    out["strided"] = strided
    out["negative"] = a[(slice(None, None, -1),) * a.ndim].copy()[(slice(None, None, -1),) * a.ndim]
    out["transposed"] = np.ascontiguousarray(a.T).T
    ro = a.copy()
    ro.flags.writeable = False
    out["readonly"] = ro
    out["pickled"] = pickle.loads(pickle.dumps(a))
    if a.ndim >= 2 and a.shape[0] > 0:
        out["zero stride"] = np.broadcast_to(a[:1], a.shape)
    return out


def both(fn, **options):
    """(native, pycall) compilations of `fn`."""
    native = pyad.jit_grad(fn, **options)
    slow = pyad.jit_grad(fn, **options)
    return native, slow


def call_slow(monkeypatch, slow, method, *args):
    with monkeypatch.context() as m:
        m.setattr(callables, "NATIVE_ARRAYS", False)
        return getattr(slow, method)(*args) if method != "__call__" else slow(*args)


def same(a, b):
    """Bit-identical structure (arrays: dtype, shape, values; nan == nan)."""
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(b, np.ndarray):
        assert type(a) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), (a, b)
    else:
        assert type(a) is type(b) and (a == b or (a != a and b != b)), (a, b)


class Spy:
    """Counts the calls that reach the Python dispatcher of `f` (the wrappers' fallback)."""

    def __init__(self, f):
        self.calls = 0
        for name in ("_dispatch_call", "_dispatch_grad"):
            orig = getattr(f, name)

            def spy(*args, _orig=orig):
                self.calls += 1
                return _orig(*args)
            setattr(f, name, spy)


RNG = np.random.default_rng(2024)
X = RNG.normal(size=7)
W = RNG.uniform(0.5, 1.5, size=7)
A = RNG.normal(size=(3, 4))
T = RNG.normal(size=(2, 3, 4))


# ------------------------------------------------------------------------------- equality
@pytest.mark.parametrize("layout", list(layouts(X)))
def test_native_equals_pycall_and_interpreter_1d(layout, monkeypatch):
    f, slow = both(weighted_sq)
    f(X, W, 0.25)  # the first signature: native from now on
    x, w = layouts(X)[layout], layouts(W)[layout]
    for method in ("__call__", "grad", "value_and_grad"):
        got = f(x, w, 0.25) if method == "__call__" else getattr(f, method)(x, w, 0.25)
        same(got, call_slow(monkeypatch, slow, method, x, w, 0.25))
    value, grad = f.value_and_grad(x, w, 0.25)
    ivalue, igrad = interp_value_and_grad(f, x, w, 0.25)
    assert value == pytest.approx(ivalue, rel=1e-12) and value == pytest.approx(
        weighted_sq(x, w, 0.25), rel=1e-12)
    for g, ig in zip(grad, igrad):
        np.testing.assert_allclose(g, ig, rtol=1e-12)


@pytest.mark.parametrize("layout", list(layouts(A)))
def test_native_equals_pycall_2d_and_3d(layout, monkeypatch):
    f, slow = both(frob_mixed)
    f(A, 3)
    a = layouts(A)[layout]
    for method in ("__call__", "grad", "value_and_grad"):
        got = f(a, 3) if method == "__call__" else getattr(f, method)(a, 3)
        same(got, call_slow(monkeypatch, slow, method, a, 3))
    g, slow3 = both(cube_sum)
    t = layouts(T)[layout] if layout in layouts(T) else T
    same(g.value_and_grad(t), call_slow(monkeypatch, slow3, "value_and_grad", t))
    assert g(t) == pytest.approx(np.sum(t * t), rel=1e-13)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "negative", "transposed", "zero stride"])
def test_array_results_and_pullback_equal_pycall(layout, monkeypatch):
    f, slow = both(results)
    f(X, A)
    x, a = layouts(X).get(layout, X), layouts(A)[layout]
    got = f(x, a)
    same(got, call_slow(monkeypatch, slow, "__call__", x, a))
    same(got[0][0], x * 2.0)
    same(got[0][1][0], a.T.copy())
    same(got[1], a[0].copy())
    assert got[0][1][1] == pytest.approx(np.sum(a), rel=1e-13)
    for r in (got[0][0], got[0][1][0], got[1]):
        assert r.flags.c_contiguous and r.flags.owndata and r.flags.writeable
        assert not np.shares_memory(r, x) and not np.shares_memory(r, a)
    y, back = f.pullback(x, a)
    ys, backs = call_slow(monkeypatch, slow, "pullback", x, a)
    same(y, ys)
    ct = ((np.ones(7), (np.full((4, 3), 0.5), 2.0)), np.arange(4.0))
    same(back(ct), backs(ct))


@pytest.mark.parametrize("layout", list(layouts(T)))
def test_3d_and_int_and_bool_array_results(layout, monkeypatch):
    f, slow = both(views3)
    t = layouts(T)[layout]
    got = f(t)
    same(got, call_slow(monkeypatch, slow, "__call__", t))
    same(got, (t.T.copy(), t[1].copy(), t[1:].copy()))
    assert all(r.flags.c_contiguous and r.flags.owndata for r in got)
    g, slow2 = both(int_bool_results)
    x = layouts(X)[layout] if layout in layouts(X) else X
    got = g(x, 4)
    same(got, call_slow(monkeypatch, slow2, "__call__", x, 4))
    same(got, (x > 0.0, np.full(7, 4)))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.int32, np.uint8, ">f8",
                                   "q", "l"])
def test_other_dtypes_are_converted_like_before(dtype, monkeypatch):
    f, slow = both(weighted_sq)
    f(X, W, 0.5)
    x = (X * 10).astype(dtype)
    same(f(x, W, 0.5), call_slow(monkeypatch, slow, "__call__", x, W, 0.5))
    assert f(x, W, 0.5) == pytest.approx(weighted_sq(x.astype(np.float64), W, 0.5), rel=1e-13)


def test_int_and_bool_arrays(monkeypatch):
    f, slow = both(count_true)
    b, v = np.array([True, False, True, True]), np.array([3, 5, 7, 11])
    assert f(b, v) == 21
    for bb, vv in ((b[::-1], v[::-1]), (b.astype(np.int8) > 0, v.astype("q")),
                   (pickle.loads(pickle.dumps(b)), v.astype(np.int32))):
        same(f(bb, vv), call_slow(monkeypatch, slow, "__call__", bb, vv))
        same(f(bb, vv), int(np.sum(vv[bb])))


def test_empty_arrays_and_odd_strides():
    f = pyad.jit_grad(weighted_sq, argnums="all")
    e = np.zeros(0)
    assert f(e, e, 1.0) == 0.0
    gx, gw, ga = f.grad(e, e, 1.0)
    assert gx.shape == (0,) and gw.shape == (0,) and ga == 0.0
    rec = np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])
    rec["a"] = [1.0, 2.0, 3.0]
    for x in (rec["a"], rec["a"][:1], rec["a"][:0], rec["a"][::-1]):  # strides of 12 bytes
        np.testing.assert_allclose(f.grad(x, np.ones(len(x)), 0.0)[0], 2.0 * x)
    s = pyad.jit_grad(scaled)
    for x in (np.zeros(0), np.zeros((0,))[::-1], rec["a"]):
        same(s(x), 3.0 * np.asarray(x, dtype=np.float64))


@pytest.mark.parametrize("argnums", [0, (1, 0), (0, 0, 2), 2, (2,)])
def test_argnums_select_shadows(argnums, monkeypatch):
    f, slow = both(weighted_sq, argnums=argnums)
    x, w = X[::-1], layouts(W)["strided"]
    f(x, w, 0.5)
    for method in ("grad", "value_and_grad"):
        got = getattr(f, method)(x, w, 0.5)
        same(got, call_slow(monkeypatch, slow, method, x, w, 0.5))
        same(got, getattr(f, method)(x, w, 0.5))  # the native path (installed after one call)
    if argnums == (0, 0, 2):
        g = f.grad(x, w, 0.5)
        assert g[0] is g[1]  # one gradient array, as the cffi path and NumPy code would give
        counts = [sys.getrefcount(g[0])]
        assert counts == [3]  # two tuple slots + getrefcount's argument


# ------------------------------------------------------------------------------- fast path
def test_the_native_path_is_taken_for_arrays_it_can_read():
    f = pyad.jit_grad(weighted_sq)
    f(X, W, 1.0)
    f.grad(X, W, 1.0)
    f.value_and_grad(X, W, 1.0)
    assert type(f.__call__).__name__ == "builtin_function_or_method"
    assert type(f.grad).__name__ == "builtin_function_or_method"
    spy = Spy(f)
    copied = 0
    for name, x in layouts(X).items():
        w = layouts(W)[name]
        f(x, w, 1.0), f.grad(x, w, 1.0), f.value_and_grad(x, w, 1.0)
        # a view that is not C-contiguous is copied by the dispatcher (api/arrays.is_native)
        copied += 3 * (not (x.flags.c_contiguous and w.flags.c_contiguous))
    assert copied and spy.calls == copied
    spy.calls = 0
    rec = np.zeros(7, dtype=[("a", "f8"), ("b", "i4")])
    rec["a"] = X
    for x in (X.astype(np.float32), X.astype(">f8"), X.view(Sub), rec["a"]):
        assert f(x, W, 1.0) == pytest.approx(weighted_sq(np.asarray(x, np.float64), W, 1.0))
    # a list is a pytree: a list of fixed length there (docs/python.md), through the dispatcher
    assert f(list(X), W, 1.0) == pytest.approx(weighted_sq(X, W, 1.0))
    assert spy.calls == 5


class Sub(np.ndarray):
    """A subclass: not read in place (the dispatcher passes its ndarray view)."""


def test_other_signatures_go_through_the_dispatcher():
    f = pyad.jit_grad(broadcast)
    assert f(X, X) == pytest.approx(2 * X.sum())
    spy = Spy(f)
    assert f(A, A) == pytest.approx(2 * A.sum())  # 2-D: the dispatcher picks that signature
    assert f(X, X) == pytest.approx(2 * X.sum())
    assert spy.calls == 1


def test_native_wrappers_refuse_what_they_cannot_read_without_a_fallback():
    from pyad.pipeline import primal_ir
    func, shape = primal_ir(scaled, ("f64[1d]",))
    unit = build.compile_unit("t", [build.KernelSpec("primal", func)],
                              [build.WrapperSpec("primal", "primal", shape)], pyname="scaled")
    native = unit.callables["primal"]
    same(native(X), 3.0 * X)
    same(native(X[::-1][::-1]), 3.0 * X)
    for bad in (X.astype(np.float32), X[:, None], [1.0], X.astype(">f8"), X.view(Sub),
                X[::-2], X[::2]):   # kernels read C-contiguous arrays only
        with pytest.raises(TypeError, match="argument 1 must be float64 1-D array"):
            native(bad)
    with pytest.raises(TypeError, match=r"takes 1 argument \(float64 1-D array\), got 2"):
        native(X, X)


def test_the_pycall_path_keeps_the_wrapper_contract(monkeypatch):
    monkeypatch.setattr(callables, "NATIVE_ARRAYS", False)
    f = pyad.jit_grad(weighted_sq)
    assert f(X, W, 1.0) == pytest.approx(weighted_sq(X, W, 1.0))
    spy = Spy(f)
    f.grad(X, W, 1.0)
    assert spy.calls == 1  # the first grad call compiles through the dispatcher
    f.grad(X[::-1][::-1], W, 1.0)
    f(X, W, 1.0)
    assert spy.calls == 1
    f(X.astype(np.float32), W, 1.0)
    assert spy.calls == 2
    f.grad(X[::2], W[::2], 1.0)   # not C-contiguous: copied by the dispatcher
    assert spy.calls == 3
    same(pickle.loads(pickle.dumps(f.grad))(X, W, 1.0), f.grad(X, W, 1.0))


# ------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("bad", [{1.0, 2.0}, np.ones(3, complex), np.array([None, 1.0]),
                                 np.ones((1, 1, 1, 3))])
def test_type_errors_name_the_argument(bad):
    f = pyad.jit_grad(weighted_sq)
    f(X, W, 1.0)
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(TypeError, match="'w'"):
            call(X, bad, 1.0)
        with pytest.raises(TypeError, match="'x'"):
            call(bad, W, 1.0)


def test_a_string_argument_is_refused_where_it_is_used():
    """A string is a compile-time value (tests/api/test_string_arguments.py): indexing it
    as an array is refused at the line that does."""
    f = pyad.jit_grad(weighted_sq)
    for call in (f, f.grad, f.value_and_grad, f.pullback):
        with pytest.raises(pyad.PyadError, match=r"test_callpath.py:37:.*indexing of a string"):
            call(X, "abc", 1.0)


def test_runtime_errors_are_unchanged(monkeypatch):
    f, slow = both(bounded)
    f(X, 2)
    for g in (f, slow):
        with monkeypatch.context() as m:
            if g is slow:
                m.setattr(callables, "NATIVE_ARRAYS", False)
            for call in (g, g.grad, g.value_and_grad, lambda *a: g.pullback(*a)[1](1.0)):
                with pytest.raises(IndexError, match=r"index 7 is out of bounds for axis 0 with "
                                                     r"size 7 \(line \d+ of test_callpath.py\)"):
                    call(X, 7)
    h = pyad.jit_grad(broadcast)
    h(X, X)
    for call in (h, h.grad, h.value_and_grad):
        with pytest.raises(ValueError, match="could not be broadcast"):
            call(X, X[:3])


def test_caller_arrays_are_never_modified():
    f = pyad.jit_grad(weighted_sq)
    x, w = X.copy(), W.copy()
    f(x, w, 0.5), f.grad(x, w, 0.5), f.value_and_grad(x, w, 0.5)
    y, back = f.pullback(x, w, 0.5)
    back(1.0)
    assert np.array_equal(x, X) and np.array_equal(w, W)


# ------------------------------------------------------------------------------- leaks
def test_no_reference_leaks():
    f = pyad.jit_grad(weighted_sq, argnums="all")
    r = pyad.jit_grad(results)
    x, w = X.copy(), W[::-1]
    watched = (x, w, A, np.dtype(np.float64), np.dtype(np.int64), np.ndarray)

    def body():
        v = f(x, w, 1.0)
        grads = f.grad(x, w, 1.0)
        vg = f.value_and_grad(x, w, 1.0)
        out = r(x, A)
        f(x.astype(np.float32), w, 1.0)  # through the dispatcher
        return v, grads, vg, out

    body()
    gc.collect()
    before = [sys.getrefcount(o) for o in watched]
    for _ in range(2000):
        v, grads, vg, out = body()
    del v, grads, vg, out
    gc.collect()
    assert [sys.getrefcount(o) for o in watched] == before
    v, (gx, gw, ga), (val, g), out = body()
    # results are referenced once: by the name (or the tuple) here, plus getrefcount's argument
    # (counted outside `assert`: pytest's rewriting keeps intermediate values alive)
    counts = [sys.getrefcount(gx), sys.getrefcount(gw), sys.getrefcount(g)]
    counts += [sys.getrefcount(o) for o in (g[0], out[0][0], out[0][1][0], out[1])]
    assert counts == [2, 2, 2, 4, 4, 4, 4]  # + the tuple literal and the loop variable
    assert type(v) is float and type(ga) is float and type(val) is float


def _traced_growth(work, rounds: int) -> int:
    work()
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(rounds):
            work()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()


def test_no_memory_leaks_on_success_and_on_error():
    f = pyad.jit_grad(bounded)
    r = pyad.jit_grad(results)
    x = np.ones(20_000)  # each shadow / result: 160 kB, numpy reports it to tracemalloc
    big = np.ones((200, 100))

    def ok():
        f(x, 3), f.grad(x, 3), f.value_and_grad(x, 3), r(x, big)

    def failing():
        for call in (f, f.grad, f.value_and_grad):
            try:
                call(x, 10**6)  # the shadow is made, then the kernel raises
            except IndexError:
                pass

    assert _traced_growth(ok, 200) < 2 * 2**20
    assert _traced_growth(failing, 200) < 2 * 2**20


# ------------------------------------------------------------------------------- threads
def test_threads_calling_the_native_path_get_their_own_results():
    f = pyad.jit_grad(weighted_sq)
    inputs = [(RNG.normal(size=50 + k), RNG.uniform(size=50 + k), 0.1 * k) for k in range(8)]
    want = [(f(*a), f.value_and_grad(*a)) for a in inputs]

    def work(k):
        for _ in range(300):
            same((f(*inputs[k]), f.value_and_grad(*inputs[k])), want[k])
    run_together(work, 8)


def test_concurrent_first_calls_bind_numpy_once():
    f = pyad.jit_grad(scaled)
    out = [None] * 6

    def work(k):
        out[k] = f(np.full(3, float(k)))
    run_together(work, 6)
    for k in range(6):
        same(out[k], np.full(3, 3.0 * k))


# ------------------------------------------------------------------------------- units
def test_layout_facts_and_python_predicate_agree():
    assert pywrap_arrays.NUMPY_LAYOUT["array"]["data"] == 16
    t = "f64[1d]"
    assert api_arrays.is_native(t, X) and not api_arrays.is_native(t, X[::-3])
    assert api_arrays.is_native(t, pickle.loads(pickle.dumps(X)))
    assert not api_arrays.is_native(t, X.astype(">f8"))
    assert not api_arrays.is_native(t, X.astype(np.float32))
    assert not api_arrays.is_native(t, X[None])
    assert not api_arrays.is_native(t, X.view(Sub))
    assert api_arrays.is_native("i64[1d]", np.arange(3, dtype="q"))


def _c_layouts() -> list:
    """2-D float64 arrays in layouts at the edges of NumPy's C-contiguity rule."""
    a = np.arange(24.0).reshape(4, 6)
    return [a, a[1:3], a[:, 1:3], a[::2], a[:, ::2], a.T, np.asfortranarray(a), a[::-1],
            a[2:3, ::2],                    # length 1: its stride does not count
            a[:, 2:3], a[:1, :1],
            np.zeros((0, 6))[:, ::2], np.zeros((3, 0)), np.zeros((0, 0)),   # empty
            np.broadcast_to(a[:1], (4, 6)), np.broadcast_to(a[:, :1], (4, 1)),
            a[::-1][::-1], np.lib.stride_tricks.as_strided(a, (2, 6), (96, 8))]


def test_the_wrapper_reads_exactly_the_c_contiguous_arrays():
    """The native wrapper's test (wrap_arrays._fields) and api_arrays.is_native agree with
    NumPy's C_CONTIGUOUS flag on every layout; the arrays it refuses are the ones the
    dispatcher copies, and the kernel, which indexes its parameters as C-contiguous
    (lower/array.c_contiguous), reads the ones it takes right."""
    from pyad.pipeline import primal_ir
    func, shape = primal_ir(scaled, ("f64[2d]",))
    unit = build.compile_unit("t", [build.KernelSpec("primal", func)],
                              [build.WrapperSpec("primal", "primal", shape)], pyname="scaled")
    native = unit.callables["primal"]
    for a in _c_layouts():
        assert api_arrays.is_native("f64[2d]", a) == a.flags.c_contiguous, (a.shape, a.strides)
        if a.flags.c_contiguous:
            same(native(a), 3.0 * a)
        else:
            with pytest.raises(TypeError, match="argument 1 must be float64 2-D array"):
                native(a)
    f = pyad.jit_grad(lambda a: np.sum(a * np.arange(a.shape[1])))
    for a in _c_layouts():
        b = np.ascontiguousarray(a)
        assert f(a) == f(b) and np.array_equal(f.grad(a), f.grad(b))


def test_shadow_result_spec_is_validated():
    with pytest.raises(ValueError, match="shadow 1"):
        pywrap._check_result_spec((0, pywrap.Shadow(1)), 1, 1)
    pywrap._check_result_spec((0, (pywrap.Shadow(0), None)), 1, 1)


def test_a_wrapper_refusing_converted_arguments_is_an_internal_error(monkeypatch):
    """The dispatcher converts what the native wrapper refused; should the wrapper refuse the
    converted arguments too, that is a pyad bug reported as such, never endless recursion."""
    f = pyad.jit_grad(weighted_sq)
    f(X, W, 1.0), f.grad(X, W, 1.0)
    monkeypatch.setattr(api_arrays, "convert", lambda t, a: a)  # "converts" nothing
    x32 = X.astype(np.float32)
    for call in (f, f.grad, f.value_and_grad):
        with pytest.raises(pyad.PyadInternalError, match="refused the arguments"):
            call(x32, W, 1.0)
    monkeypatch.undo()
    assert f(x32, W, 1.0) == pytest.approx(weighted_sq(X.astype(np.float32).astype(float), W, 1.0))
