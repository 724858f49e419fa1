"""The frontend's side of custom derivative rules: the `Rule` a `custom_vjp` call site is
lowered to (pyad/custom.py defines `custom_vjp` and `stop_gradient`, what users call)."""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.nodes import Func


@dataclass(frozen=True, eq=False)
class Rule:
    """A backward rule lowered for one call site, carried by the call's `custom_vjp` ops
    (their first attribute): `bwd(residuals..., cotangents...)` returns one float cotangent
    per argument; `n_res` residuals, and one cotangent per leaf of the value, of `ct_types`.
    Compared by identity (the ops of one call site share it)."""
    name: str
    bwd: Func
    n_res: int
    ct_types: tuple[str, ...]

    def __str__(self) -> str:
        return f"rule:{self.name}"
