"""`pyad.check_grad`: compare compiled gradients with central finite differences and run a
dot-product test <J v, w> == <v, J^T w> through the pullback; `interp_value_and_grad`: the
gradient by the IR interpreter on the IR the AD pass made (an oracle for the backend)."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import arrays as api_arrays
from .. import pytree
from ..errors import StrongZeros
from .transforms import _compiled


def _flat(y: Any) -> list[float]:
    """The numbers of a result: its leaves, arrays element by element."""
    return [float(v) for leaf in pytree.tree_leaves(y) for v in np.ravel(leaf)]


def _rebuild(like: Any, flat: list[float]) -> Any:
    """A value of the structure of the result `like` (arrays of its shapes) from `flat`."""
    it = iter(flat)

    def leaf(s: Any) -> Any:
        if isinstance(s, np.ndarray):
            return np.array([next(it) for _ in range(s.size)], dtype=np.float64).reshape(s.shape)
        return next(it)
    return pytree.user_tree_map(leaf, like)


def check_grad(f, *args, eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-7,
               seed: int = 0, coords: int = 6, kwargs: dict | None = None) -> dict:
    """Check `f`'s gradient at `f(*args, **kwargs)` with respect to every float leaf of every
    parameter (whatever `f.argnums` says): float arguments, and up to `coords` randomly
    chosen elements of each float64 array, in containers too, are perturbed by central
    differences; results may be numbers, float arrays or containers of them (up to `coords`
    result elements are checked one by one, all of them by the dot-product test).

    `f` is a `jit_grad` function, or a plain one (compiled as `pyad.grad` compiles it).
    The finite differences call `f` itself, i.e. the compiled primal: a wrong primal would
    be differentiated consistently and pass. Pair this check with one of the values against
    CPython (`f.fn(*args)`, the plain Python function).

    Raises AssertionError with the details when a check fails; otherwise returns a dict with
    the largest finite-difference error (relative to max(|value|, 1)) and the dot-product
    test's two sides.
    """
    kwargs = kwargs or {}
    if not hasattr(f, "pullback"):   # a plain function, as grad and vjp take it
        f = _compiled(f)
    import random  # import-time: ~2 ms at `import pyad`, needed by check_grad only
    rng = random.Random(seed)
    params = getattr(f, "_params", None)  # None: a stand-in taking positional arguments
    bound = params.bind(args, kwargs) if params else args  # one value per parameter
    leaves, treedef = pytree.tree_flatten(bound)

    def by_param(g) -> dict:  # gradient leaf by leaf (None where there is none)
        return dict(enumerate(pytree.flatten_like(treedef, g, "gradient")))

    inputs = []  # (leaf index, element index or None)
    for i, a in enumerate(leaves):
        if isinstance(a, float):
            inputs.append((i, None))
        elif isinstance(a, np.ndarray) and a.dtype == np.float64 and a.size:
            cells = list(np.ndindex(*a.shape))
            inputs += [(i, ix) for ix in rng.sample(cells, min(coords, len(cells)))]
    y, back = f._pullback("all", *args, **kwargs) if params else f.pullback(*args)
    ys = _flat(y)

    def at(i, ix, h):
        moved = list(leaves)
        if ix is None:
            moved[i] = leaves[i] + h
        else:
            moved[i] = leaves[i].copy()
            moved[i][ix] += h
        values = pytree.tree_unflatten(treedef, moved)
        a, kw = params.call_args(values) if params else (values, {})
        return _flat(f(*a, **kw))

    def grad_of(g: dict, i, ix):
        x = g.get(i)
        return x if x is None or ix is None else float(x[ix])

    # Jacobian columns by central differences
    cols = {c: [(p - m) / (2 * eps) for p, m in zip(at(*c, eps), at(*c, -eps))] for c in inputs}
    worst = 0.0
    rows = range(len(ys)) if len(ys) <= coords else rng.sample(range(len(ys)), coords)
    for j in rows:
        w = [1.0 if k == j else 0.0 for k in range(len(ys))]
        g = by_param(back(_rebuild(y, w)))
        for c in inputs:
            got, want = grad_of(g, *c), cols[c][j]
            if got is None:
                continue
            err = abs(got - want)
            worst = max(worst, err / max(abs(want), abs(got), 1.0))
            if not err <= atol + 100 * rtol * max(abs(want), abs(got), 1.0):  # nan fails
                where = f"leaf {c[0]}" + (f" element {c[1]}" if c[1] is not None else "")
                raise AssertionError(f"gradient of result {j} w.r.t. {where}: pyad {got!r}, "
                                     f"finite differences {want!r}")
    v = {c: rng.uniform(-1, 1) for c in inputs}
    w = [rng.uniform(-1, 1) for _ in ys]
    g = by_param(back(_rebuild(y, w)))
    live = [c for c in inputs if g.get(c[0]) is not None]
    rhs = sum(v[c] * grad_of(g, *c) for c in live)
    lhs = sum(w[j] * sum(cols[c][j] * v[c] for c in live) for j in range(len(ys)))
    if not abs(lhs - rhs) <= atol + 100 * rtol * max(abs(lhs), abs(rhs), 1.0):
        raise AssertionError(f"dot-product test failed: <J v, w> = {lhs!r}, <v, J^T w> = {rhs!r}")
    return {"fd_max_rel_error": worst, "jv_w": lhs, "v_jtw": rhs}


def interp_value_and_grad(f, *args, **kwargs) -> tuple:
    """`f.value_and_grad(*args, **kwargs)` computed by the IR interpreter on the fused
    gradient IR (same structure as value_and_grad): an oracle for the backend, since it runs
    the IR the AD pass made; it cannot see a wrong adjoint (tests/fuzz's dual numbers can)."""
    spec, leaves = f.bind(args, kwargs)
    unit = spec.gradient(f.argnums)
    if unit.fused is None:
        raise TypeError(f"{f.__name__} does not return a single float")
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a
                 for a in f._convert(spec, leaves))
    shadows = api_arrays.shadows_for(spec.sig, unit.wrt, args)
    from ..ir import interp  # import-time: the interpreter loads with its first use
    try:
        flat = interp.run(unit.fused, args + tuple(shadows))
    except StrongZeros:  # as the wrappers do: again with strong zeros, new shadows
        shadows = api_arrays.shadows_for(spec.sig, unit.wrt, args)
        flat = interp.run(unit.safe, args + tuple(shadows))
    grads = api_arrays.gradients(spec.sig, unit.wrt, list(flat[1:]), shadows)
    return flat[0], spec.arrange(unit.argnums, grads)
