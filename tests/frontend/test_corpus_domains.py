"""The domain corpus (tests/corpus_domains.py, tests/corpus_domains2.py): every function's
value equals CPython's; its pullback, for a random cotangent, equals central finite
differences of the plain Python function; for a number result, the gradient equals the IR
interpreter's and value_and_grad's. One compile per function (the pullback's), so the
module stays fast; a sample also goes through the full `check_against_python`."""
import numpy as np
import pytest

import pyad
from pyad.api.check import interp_value_and_grad
from .. import corpus_domains as C1
from .. import corpus_domains2 as C2
from ..gradients import assert_same_structure_leaves, check_against_python

CASES = C1.CASES + C2.CASES


def _copy(tree):
    return pyad.tree_map(lambda a: a.copy() if isinstance(a, np.ndarray) else a, tree)


def _float_leaf_paths(args):
    """(argument index, flat position or None) of every float number to perturb."""
    out = []
    for k, a in enumerate(args):
        if isinstance(a, float):
            out.append((k, None))
        elif isinstance(a, np.ndarray) and a.dtype == np.float64:
            out.extend((k, j) for j in range(a.size))
    return out


def _perturbed(args, k, j, h):
    args = list(_copy(args))
    if j is None:
        args[k] = args[k] + h
    else:
        a = args[k]
        a.reshape(-1)[j] += h
    return args


def _weighted(fn, ct):
    """The plain function's result dotted with the cotangent `ct` (same structure)."""
    def s(*args):
        return sum(float(np.sum(np.asarray(y) * c)) for y, c in
                   zip(pyad.tree_leaves(fn(*args)), pyad.tree_leaves(ct)))
    return s


def _grad_at(grads, k, j):
    g = grads[k]
    return float(g) if j is None else float(np.asarray(g).reshape(-1)[j])


@pytest.mark.parametrize("fn,args", CASES,
                         ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(CASES)])
def test_agrees_with_python_and_finite_differences(fn, args):
    want = fn(*_copy(args))
    f = pyad.jit_grad(fn, argnums="all")
    y, back = f.pullback(*args)
    assert pyad.tree_structure(y) == pyad.tree_structure(want), (y, want)
    for a, b in zip(pyad.tree_leaves(y), pyad.tree_leaves(want)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)
    rng = np.random.default_rng(len(fn.__name__))
    ct = pyad.tree_map(lambda v: rng.uniform(0.5, 1.5, np.shape(v)) if np.ndim(v)
                       else float(rng.uniform(0.5, 1.5)), want)
    grads = back(ct)
    grads = grads if isinstance(grads, tuple) else (grads,)
    s = _weighted(fn, ct)
    fd, got = [], []
    for k, j in _float_leaf_paths(args):
        x = args[k] if j is None else args[k].reshape(-1)[j]
        h = 1e-6 * max(1.0, abs(x))
        fd.append((s(*_perturbed(args, k, j, h)) - s(*_perturbed(args, k, j, -h))) / (2 * h))
        got.append(_grad_at(grads, k, j))
    assert np.all(np.isfinite(got)), got
    scale = max(1.0, np.max(np.abs(fd)))
    np.testing.assert_allclose(got, fd, rtol=0, atol=2e-6 * scale)
    if isinstance(want, float):   # the backend against the interpreter, value_and_grad too
        v, g = f.value_and_grad(*args)
        iv, ig = interp_value_and_grad(f, *args)
        assert v == pytest.approx(iv, rel=1e-12) and v == y
        assert_same_structure_leaves(g, ig)
        assert_same_structure_leaves(back(1.0), g, exact=True)


FULL = [C1.pendulum_rk4, C1.welford, C1.gmm_logsumexp, C1.heat_slices_inplace,
        C2.quat_loss, C2.centroid_and_spread, C2.gru_sequence, C2.boolean_mask_ops]


@pytest.mark.parametrize("fn", FULL, ids=[f.__name__ for f in FULL])
def test_full_check(fn):
    args = next(a for f, a in CASES if f is fn)
    check_against_python(fn, *args)


def test_argnums_and_keywords():
    """argnums picks the differentiated parameters; keywords reach the defaults."""
    args = (C1.X8, 0.1, -0.3)
    f = pyad.jit_grad(C1.student_t_nll, argnums=(1, 2))
    v, (gmu, gls) = f.value_and_grad(*args, nu=5.0)
    assert v == pytest.approx(C1.student_t_nll(*args, nu=5.0), rel=1e-12)
    h = 1e-6
    fd = (C1.student_t_nll(C1.X8, 0.1 + h, -0.3, nu=5.0)
          - C1.student_t_nll(C1.X8, 0.1 - h, -0.3, nu=5.0)) / (2 * h)
    assert gmu == pytest.approx(fd, rel=1e-6)
    pyad.check_grad(f, *args, kwargs={"nu": 5.0})
