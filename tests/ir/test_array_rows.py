"""The whole-array rows of the op table (pyad/ir/array_rows.py, pyad/ir/linalg_rows.py), one
sample at a time:

- the late pass's loops (pyad/ir/expand.py) compute what the row's NumPy reference computes
  (both run by the interpreter; the C kernels of the linear-algebra rows are checked against
  NumPy in tests/arrays/test_linalg.py, matmul's in tests/codegen/test_matmul_kernel.py and
  tests/arrays/test_matmul.py);
- the row's array-level adjoint passes a dot-product test against central finite
  differences of the NumPy reference: <J v, w> == <v, J^T w>, J^T w computed by the AD pass
  (`ad.differentiate`) and run by the interpreter on the loops.

End-to-end tests through `jit_grad` (values against NumPy, gradients against finite
differences and the interpreter, native code) are in tests/arrays/test_ops.py."""
from __future__ import annotations

import numpy as np
import pytest

from pyad import ad
from pyad.ir import interp
from pyad.ir.array_rows import ARRAY_ROWS
from pyad.ir.linalg_rows import LINALG_ROWS
from pyad.ir.builder import Builder, NameGen
from pyad.ir.expand import expand
from pyad.ir.nodes import F64, Block, Func, Var, array_type, is_array
from pyad.ir.verify import verify

#: a row's sample: argument shapes (() for a number), and its attrs if the row takes some
CASES = [(row, sample) for row in ARRAY_ROWS + LINALG_ROWS for sample in row.samples]


def test_every_array_row_has_samples():
    for row in ARRAY_ROWS + LINALG_ROWS:
        assert row.samples or row.name == "addto", row.name   # addto: in every adjoint


def _case_id(case) -> str:
    row, sample = case
    return f"{row.name}-{'-'.join(map(str, sample))}".replace(" ", "")


def _func(row, sample) -> tuple[Func, list]:
    """`f(args) = row(args)` with random arguments of the sample's shapes."""
    shapes, attrs = (sample[:-1], sample[-1]) if row.attr_typed else (sample, ())
    rng = np.random.default_rng(len(CASES))
    params = [Var(f"a{k}", array_type(F64, len(s)) if s else F64) for k, s in enumerate(shapes)]
    args = [rng.normal(size=s) if s else float(rng.normal()) for s in shapes]
    if row.domain is not None:
        args = row.domain(args)
    b = Builder(NameGen({p.name for p in params}))
    y = b.emit(row.name, *params, attrs=tuple(attrs))
    return verify(Func(f"row_{row.name}", Block(tuple(params), tuple(b.stmts), (y,)), "-")), args


def _run(func: Func, args: list):
    return interp.run(func, [a.copy() if isinstance(a, np.ndarray) else a for a in args])[0]


@pytest.mark.parametrize("case", [c for c in CASES if c[0].lower == ("loops",)],
                         ids=_case_id)
def test_loops_compute_the_reference(case):
    func, args = _func(*case)
    want = _run(func, args)
    got = _run(verify(expand(func)), args)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    assert np.shape(got) == np.shape(want)


@pytest.mark.parametrize("case", [c for c in CASES if c[0].dims is not None], ids=_case_id)
def test_the_shape_rule_gives_the_reference_shape(case):
    """A row's `dims` (what ir/shapes.py folds `dim` of its result to) names, for each axis
    of the reference's result, an argument axis of that length, or 1."""
    row, sample = case
    func, args = _func(row, sample)
    y = _run(func, args)
    nds = [np.ndim(a) for a in args]
    rule = row.dims(nds, func.block.body[-1].attrs)
    if rule is None:
        return
    assert len(rule) == np.ndim(y)
    for n, r in zip(np.shape(y), rule):
        assert n == (1 if r == 1 else np.shape(args[r[0]])[r[1]]), (rule, np.shape(y))


@pytest.mark.parametrize("case", [c for c in CASES if c[0].adjoint is not None], ids=_case_id)
def test_adjoint_passes_the_dot_product_test(case):
    func, args = _func(*case)
    rng = np.random.default_rng(7)
    y = _run(func, args)
    w = rng.normal(size=np.shape(y)) if np.ndim(y) else float(rng.normal())
    v = [rng.normal(size=np.shape(a)) if np.ndim(a) else float(rng.normal()) for a in args]
    eps = 1e-6
    plus = _run(func, [a + eps * d for a, d in zip(args, v)])
    minus = _run(func, [a - eps * d for a, d in zip(args, v)])
    jv = (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
    g = ad.differentiate(func, tuple(range(len(args))))
    fwd, bwd = verify(expand(g.fwd)), verify(expand(g.bwd))
    shadows = [np.zeros_like(a) for a in args if isinstance(a, np.ndarray)]
    out = interp.run(fwd, [a.copy() if isinstance(a, np.ndarray) else a for a in args]
                     + shadows)
    grads = interp.run(bwd, list(out[g.n_results:]) + [np.array(w) if is_array(
        func.results[0].type) else w])
    jt_w = list(grads)
    lhs = float(np.sum(jv * w))
    rhs = sum(float(np.sum(d * gw)) for d, gw in zip(v, jt_w))
    assert lhs == pytest.approx(rhs, rel=1e-7, abs=1e-9), (lhs, rhs)
