"""`pyad.check_grad`: compare compiled gradients with central finite differences and run a
dot-product test <J v, w> == <v, J^T w> through the pullback."""
from __future__ import annotations

import random
from typing import Any


def _flat(y: Any) -> list[float]:
    if isinstance(y, tuple):
        return [v for x in y for v in _flat(x)]
    return [float(y)]


def _rebuild(shape_like: Any, flat: list[float]) -> Any:
    it = iter(flat)

    def go(s):
        return tuple(go(x) for x in s) if isinstance(s, tuple) else next(it)
    return go(shape_like)


def check_grad(f, *args, eps: float = 1e-6, rtol: float = 1e-5, atol: float = 1e-7,
               seed: int = 0) -> dict:
    """Check `f`'s gradient at `args` (float arguments only are perturbed).

    Raises AssertionError with the details when a check fails; otherwise returns a dict with
    the largest finite-difference error (relative to max(|value|, 1)) and the dot-product
    test's two sides.
    """
    args = list(args)
    nums = getattr(f, "argnums", None)

    def by_param(g) -> dict:
        if nums is None:
            return dict(enumerate(g))
        if isinstance(nums, int):
            return {nums % len(args): g}
        return {k % len(args): x for k, x in zip(nums, g)}

    fidx = [i for i, a in enumerate(args) if isinstance(a, float)]
    y, back = f.pullback(*args)
    ys = _flat(y)

    def at(i, h):
        moved = list(args)
        moved[i] = args[i] + h
        return _flat(f(*moved))

    # Jacobian columns by central differences
    cols = {i: [(p - m) / (2 * eps) for p, m in zip(at(i, eps), at(i, -eps))] for i in fidx}
    worst = 0.0
    for j in range(len(ys)):
        w = [1.0 if k == j else 0.0 for k in range(len(ys))]
        g = by_param(back(_rebuild(y, w)))
        for i in fidx:
            got, want = g.get(i), cols[i][j]
            if got is None:
                continue
            err = abs(got - want)
            worst = max(worst, err / max(abs(want), abs(got), 1.0))
            if not err <= atol + 100 * rtol * max(abs(want), abs(got), 1.0):  # nan fails
                raise AssertionError(f"gradient of result {j} w.r.t. argument {i}: pyad {got!r}, "
                                     f"finite differences {want!r}")
    rng = random.Random(seed)
    v = {i: rng.uniform(-1, 1) for i in fidx}
    w = [rng.uniform(-1, 1) for _ in ys]
    g = by_param(back(_rebuild(y, w)))
    rhs = sum(v[i] * g[i] for i in fidx if g.get(i) is not None)
    lhs = sum(w[j] * sum(cols[i][j] * v[i] for i in fidx if g.get(i) is not None)
              for j in range(len(ys)))
    if not abs(lhs - rhs) <= atol + 100 * rtol * max(abs(lhs), abs(rhs), 1.0):
        raise AssertionError(f"dot-product test failed: <J v, w> = {lhs!r}, <v, J^T w> = {rhs!r}")
    return {"fd_max_rel_error": worst, "jv_w": lhs, "v_jtw": rhs}


def interp_value_and_grad(f, *args) -> tuple:
    """`f.value_and_grad(*args)` computed by the IR interpreter on the fused gradient IR:
    the independent oracle for the compiled gradient (same structure as value_and_grad)."""
    from . import api_arrays, interp
    spec = f.specialization(args)
    unit = spec.gradient(f.argnums)
    if unit.fused is None:
        raise TypeError(f"{f.__name__} does not return a single float")
    import numpy as np
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in f._convert(spec, args))
    shadows = api_arrays.shadows_for(spec.sig, unit.wrt, args)
    flat = interp.run(unit.fused, args + tuple(shadows))
    grads = api_arrays.gradients(spec.sig, unit.wrt, list(flat[1:]), shadows)
    return flat[0], spec.arrange(unit.argnums, grads)
