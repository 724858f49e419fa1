"""Every op-table row, checked automatically: value against CPython, gradient against
central finite differences and against the IR interpreter (an independent oracle)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import pyad
from pyad.ir import interp
from pyad.ir.array_rows import ARRAY_ROWS
from pyad.ir.linalg_rows import LINALG_ROWS
from pyad.ir.nodes import F64
from pyad.ir.ops import OPS

from ..modules import load_module

# How each operator row is spelled in Python (rows with `spell` use their math function).
OPERATOR = {"add": "a + b", "sub": "a - b", "mul": "a * b", "div": "a / b", "floordiv": "a // b",
            "mod": "a % b", "pow": "a ** b", "neg": "-a", "abs": "abs(a)", "max": "max(a, b)",
            "min": "min(a, b)", "floor": "math.floor(a)", "ceil": "math.ceil(a)"}
# Rows that only rules or conversions emit; they are covered through the ops that use them.
INTERNAL = {"const", "select", "sign", "digamma", "strongzero", "fdiv", "ipow", "imul", "push", "pop", "tapemark", "tapecut", "tapepeak", "raise_if", "lt", "le", "gt", "ge", "eq", "ne",
            "not", "tofloat", "toint", "tobool"}
# Array memory rows (alloc, load, store, views, constants, ...) are exercised by tests/arrays/.
INTERNAL |= {"alloc", "constarray", "dim", "normidx", "wrapidx", "load", "store", "accum", "row",
             "col", "slice", "transpose", "view"}
# Derivative control (stop_gradient, custom_vjp) and native calls (recursion) are exercised by
# tests/api/test_calls.py and tests/api/test_recursion.py.
INTERNAL |= {"stopgrad", "custom_vjp", "call", "callfwd", "callbwd"}
# Whole-array rows have a harness of their own: tests/ir/test_array_rows.py (and
# tests/codegen/test_linalg_kernels.py for the linear-algebra kernels); their spellings are
# the frontend's (np.linalg.* in pyad/frontend/linalg.py).
INTERNAL |= {r.name for r in ARRAY_ROWS + LINALG_ROWS}
ROWS = [r for r in OPS.values() if r.name not in INTERNAL]


def _expr(row) -> str:
    arity = len(next(iter(row.sigs)))
    args = ", ".join("ab"[:arity])
    return OPERATOR.get(row.name) or f"{row.spell[0]}({args})"


@pytest.fixture(scope="module")
def opfuncs(tmp_path_factory):
    path = tmp_path_factory.mktemp("ops") / "opfuncs.py"
    lines = ["import math", "import numpy", ""]
    for row in ROWS:
        params = ", ".join("ab"[:len(next(iter(row.sigs)))])
        lines += [f"def op_{row.name}({params}):", f"    return {_expr(row)}", ""]
    return load_module(path, "\n".join(lines))


def test_table_is_complete():
    for row in OPS.values():
        assert row.doc and row.lower and row.sigs, row.name
        assert row.adjoint is not None or row.name in ("digamma", "strongzero", "fdiv", "callfwd",
                                                       "callbwd", "spread", "addto", "trisolve",
                                                       "tril_half", "tril_fold", "eigh_mid",
                                                       "svd_back", "qr_back"), \
            row.name
        if row.name not in INTERNAL:
            assert row.samples, f"op {row.name} has no sample points"
            assert row.name in OPERATOR or row.spell, f"op {row.name} has no Python spelling"


def _fd(fn, args, i, eps=1e-6):
    hi = list(args); hi[i] += eps
    lo = list(args); lo[i] -= eps
    return (fn(*hi) - fn(*lo)) / (2 * eps)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_op(row, opfuncs):
    py = getattr(opfuncs, f"op_{row.name}")
    f = pyad.jit_grad(py, argnums="all")
    for sample in row.samples:
        want = py(*sample)
        got = f(*sample)
        assert type(got) is (float if type(want) is np.float64 else type(want))  # np.rint
        assert got == pytest.approx(want, rel=1e-13, abs=1e-15), sample
        spec = f.specialization(sample)
        assert interp.run(spec.func, sample)[0] == pytest.approx(want, rel=1e-13, abs=1e-15)
        if not isinstance(want, float):
            continue  # floor/ceil return ints: nothing to differentiate
        grads = f.grad(*sample)
        oracle = interp.run(spec.gradient("all").fused, sample)[1:]
        for i, g in enumerate(grads):
            assert g == pytest.approx(oracle[i], rel=1e-12, abs=1e-14), (sample, i)
            assert g == pytest.approx(_fd(py, sample, i), rel=1e-6, abs=1e-8), (sample, i)


# Points where partial derivatives are often infinite or nan (0 for sqrt, log, division
# and pow; +-1 for asin, acos, atanh; infinities; the largest and the smallest doubles).
SPECIAL = (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.inf, -math.inf, 1e308, 5e-324)
FLOAT_ROWS = [r for r in ROWS if any(all(t == F64 for t in sig) for sig in r.sigs)]


@pytest.fixture(scope="module")
def zero_ct_funcs(tmp_path_factory):
    """z_NAME(a[, b]) = 0.0 * NAME(a[, b]) + a [+ b]: the op's cotangent is exactly 0."""
    path = tmp_path_factory.mktemp("ops") / "zero_ct_funcs.py"
    lines = ["import math", "import numpy", ""]
    for row in FLOAT_ROWS:
        params = "ab"[:len(next(iter(row.sigs)))]
        lines += [f"def z_{row.name}({', '.join(params)}):",
                  f"    return 0.0 * ({_expr(row)}) + {' + '.join(params)}", ""]
    return load_module(path, "\n".join(lines))


@pytest.mark.parametrize("row", FLOAT_ROWS, ids=lambda r: r.name)
def test_a_zero_cotangent_contributes_zero(row, zero_ct_funcs):
    """Strong zeros (docs/gradients.md): at every point where the primal is finite, an op
    whose cotangent is exactly 0 adds exactly 0 to its arguments' gradients, even where its
    partial derivatives are infinite or nan: the gradient is 1 for each argument."""
    py = getattr(zero_ct_funcs, f"z_{row.name}")
    arity = len(next(iter(row.sigs)))
    f = pyad.jit_grad(py, argnums="all")
    for point in itertools.product(SPECIAL, repeat=arity):
        try:
            want = py(*point)
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
        if not isinstance(want, float) or not math.isfinite(want):
            continue  # (-1.0) ** 0.5 is complex in CPython
        if row.name in ("floor", "ceil") and abs(point[0]) >= 2.0 ** 63:
            continue  # pyad's ints are 64-bit: math.floor(1e308) is an OverflowError
        assert f.grad(*point) == (1.0,) * arity, point
        assert f.pullback(*point)[1](1.0) == (1.0,) * arity, point


def test_lgamma_derivative_is_digamma():
    # digamma only appears in adjoint code; check it against a high-accuracy difference
    from pyad.ir.semantics import digamma
    for x in (0.3, 1.0, 2.5, 7.25, -0.5, -2.7):
        fd = (math.lgamma(x + 1e-6) - math.lgamma(x - 1e-6)) / 2e-6
        assert digamma(x) == pytest.approx(fd, rel=1e-7)
    assert digamma(1.0) == pytest.approx(-0.5772156649015329, rel=1e-14)
