"""Pickling compiled functions (by reference), process pools with the spawn and fork start
methods, os.fork() after and before compiling, and pullbacks (which refuse to pickle)."""
from __future__ import annotations

import concurrent.futures
import inspect
import copy
import multiprocessing
import os
import pickle
import signal
import threading

import numpy as np
import pytest

import pyad

from .. import mp_helpers
from ..mp_helpers import energy, square, weighted

XS = [0.3, 0.7, 1.1, 1.9]


def expected_energy(x):
    return energy.fn(x, 7)


def _child(run, timeout_s: int = 60):
    """Fork; the child runs `run()` and sends back repr of the result (or of the exception);
    a child that hangs is killed by an alarm. Returns the string."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code = 1
        try:
            os.close(r)
            signal.alarm(timeout_s)
            try:
                msg = "ok " + repr(run())
                code = 0
            except BaseException as e:  # noqa: BLE001 -- reported to the parent
                msg = f"error {type(e).__name__}: {e}"
            os.write(w, msg.encode())
            os.close(w)
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    out = b"".join(chunks).decode()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (status, out)
    return out


# --------------------------------------------------------------------------- by reference
def test_pickles_by_reference_to_the_same_object():
    data = pickle.dumps(energy)
    assert b"mp_helpers" in data and len(data) < 300  # a reference, not code
    assert pickle.loads(data) is energy
    assert copy.deepcopy(energy) is energy


def test_native_entry_points_pickle_as_attributes():
    energy(0.5, 7)
    energy.grad(0.5, 7)
    assert "grad" in energy.__dict__  # the native fast path is installed
    for attr in (energy.grad, energy.value_and_grad, energy.__call__):
        back = pickle.loads(pickle.dumps(attr))
        assert back(0.9, 7) == attr(0.9, 7)
    assert pickle.loads(pickle.dumps(energy.grad))(0.9, 7) == pytest.approx(
        sum(k * np.cos(0.9 * k) / k for k in range(1, 8)), rel=1e-12)


def test_alias_of_a_plain_function_is_rebuilt_with_its_options():
    # mp_helpers.plain_square is the plain function; `square` was made by jit_grad(...)
    back = pickle.loads(pickle.dumps(square))
    assert isinstance(back, pyad.JitGrad) and back.argnums == 0
    assert back is pickle.loads(pickle.dumps(square))  # rebuilt once per process
    assert back(2.0, 3.0) == square(2.0, 3.0) == 13.0
    assert back.grad(2.0, 3.0) == square.grad(2.0, 3.0) == 12.0


def test_local_function_refuses_with_a_clear_error():
    def local(x):
        return x * x

    f = pyad.jit_grad(local)
    with pytest.raises(pickle.PicklingError, match="by reference"):
        pickle.dumps(f)


def test_pullbacks_refuse_to_pickle_or_copy():
    _, back = energy.pullback(0.5, 7)
    with pytest.raises(TypeError, match="pullback cannot be pickled"):
        pickle.dumps(back)
    with pytest.raises(TypeError, match="pullback cannot be pickled"):
        copy.copy(back)
    assert back(1.0) == pytest.approx(energy.grad(0.5, 7), rel=1e-12)  # still usable
    _, aback = weighted.pullback(np.ones(3), np.arange(3.0))
    with pytest.raises(TypeError, match="pullback cannot be pickled"):
        pickle.dumps(aback)


# --------------------------------------------------------------------------- process pools
@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_multiprocessing_pool(method):
    energy.grad(0.1, 7)  # compiled in the parent (the fork children inherit the code)
    ctx = multiprocessing.get_context(method)
    with ctx.Pool(2) as pool:
        values = pool.starmap(energy, [(x, 7) for x in XS])
        grads = pool.starmap(energy.grad, [(x, 7) for x in XS])
        both = pool.map(mp_helpers.call_energy, XS)
        wgrads = pool.starmap(weighted.grad, [(np.full(3, x), np.arange(3.0)) for x in XS])
    assert values == pytest.approx([expected_energy(x) for x in XS], rel=1e-12)
    assert grads == [energy.grad(x, 7) for x in XS]
    assert both == [(energy(x, 7), energy.grad(x, 7)) for x in XS]
    for x, (gw, gx) in zip(XS, wgrads):
        np.testing.assert_allclose(gw, 2 * x * np.arange(3.0) ** 2, rtol=1e-12)
        np.testing.assert_allclose(gx, 2 * x * x * np.arange(3.0), rtol=1e-12)


def test_process_pool_executor_spawn():
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as ex:
        values = list(ex.map(energy, XS, [7] * len(XS)))
        sq = list(ex.map(square.grad, XS, [3.0] * len(XS)))
    assert values == pytest.approx([expected_energy(x) for x in XS], rel=1e-12)
    assert sq == [6.0 * x for x in XS]


# --------------------------------------------------------------------------- os.fork
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_compiled_in_parent_works_in_forked_child():
    want = (energy(1.25, 7), energy.grad(1.25, 7))
    out = _child(lambda: (energy(1.25, 7), energy.grad(1.25, 7)))
    assert out == "ok " + repr(want)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_first_compile_in_forked_child():
    energy(0.2, 3)  # LLVM and the JIT exist in the parent before the fork

    def run():  # new JitGrad objects: nothing of theirs was compiled before the fork
        f = pyad.jit_grad(mp_helpers.plain_square, argnums="all")
        g = pyad.jit_grad(mp_helpers.energy.fn)
        return f(2.0, 3.0), f.grad(2.0, 3.0), g.value_and_grad(0.5, 4)

    out = _child(run)
    g = pyad.jit_grad(mp_helpers.energy.fn)
    assert out == "ok " + repr((13.0, (12.0, 4.0), g.value_and_grad(0.5, 4)))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_while_another_thread_compiles():
    # The fork waits for the compile lock, so the child never inherits LLVM mid-compile; the
    # child then compiles on its own (an alarm kills it if it hangs).
    stop = threading.Event()
    errors: list = []

    def compile_loop():
        try:
            while not stop.is_set():
                f = pyad.jit_grad(mp_helpers.energy.fn)
                f.value_and_grad(0.5, 5)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=compile_loop)
    t.start()
    try:
        outs = []
        for _ in range(3):
            outs.append(_child(lambda: pyad.jit_grad(mp_helpers.plain_square,
                                                     argnums="all").grad(2.0, 3.0),
                               timeout_s=30))
    finally:
        stop.set()
        t.join()
    assert not errors
    assert outs == ["ok (12.0, 4.0)"] * 3


def test_unpickling_a_missing_function_fails_clearly():
    from pyad.api.pickling import load_jit_grad
    with pytest.raises(pickle.UnpicklingError, match="cannot find"):
        load_jit_grad("tests.mp_helpers", "no_such_function")
    with pytest.raises(pickle.UnpicklingError, match="not a pyad.jit_grad"):
        load_jit_grad("tests.mp_helpers", "plain_square")


def test_errors_still_raise_in_workers():
    # an error in a worker (bad argument type) comes back as the same exception type
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        with pytest.raises(TypeError, match="must be a float"):
            pool.starmap(energy, [(1j, 3)])


def test_located_errors_keep_their_location_in_workers():
    # a compile error in a worker comes back located in the user's file, not at `<unknown>:0`
    from ..mp_helpers import refused
    line = inspect.getsource(mp_helpers).splitlines().index("    try:") + 1
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        with pytest.raises(pyad.PyadSyntaxError) as info:
            pool.apply(refused, (1.0,))
    e = info.value
    assert (os.path.basename(e.filename), e.line) == ("mp_helpers.py", line)
    assert str(e).startswith(f"{e.filename}:{line}:5: error: ") and "<unknown>" not in str(e)
    assert "\n        try:\n        ^^^" in str(e)
    copy_ = pickle.loads(pickle.dumps(e))  # the same in one process
    assert (type(copy_), str(copy_), copy_.hint, copy_.col) == (type(e), str(e), e.hint, e.col)
