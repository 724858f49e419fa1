"""The compiler's table of contents: the passes, in order, from a Python function to the IR
that `pyad.codegen` compiles. Every pass is `Func -> Func` (AD: `Func -> Gradient`), and the
verifier runs between passes."""
from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

from . import ad, frontend, opt
from .ir import F64, Func
from .verify import verify


def primal_ir(fn: types.FunctionType, sig: tuple[str, ...]) -> tuple[Func, Any]:
    """Source -> typed SSA IR, simplified. Returns the Func and the shape of its result."""
    func, shape = frontend.lower(fn, sig)   # Python AST -> IR (located errors)
    return simplify(func), shape


def simplify(func: Func) -> Func:
    """The clean-ups every lowered function gets (recursive callees too)."""
    func = verify(func)
    func = opt.fold_constants(func)         # constants, e.g. float(2) -> 2.0
    func = opt.cse(func)                    # repeated pure ops computed once
    func = opt.dce(func)                    # unused values removed
    return verify(func)


@dataclass(frozen=True)
class GradientIR:
    g: ad.Gradient          # forward (saves), backward (reads saved values + cotangents)
    fused: Func | None      # forward + backward with cotangent 1.0, for a single float result


def gradient_ir(func: Func, wrt: tuple[int, ...]) -> GradientIR:
    g = ad.differentiate(func, wrt)         # reverse sweep, accumulation, saved values, CSE, DCE
    verify(g.fwd)
    verify(g.bwd)
    scalar = len(func.results) == 1 and func.results[0].type == F64
    return GradientIR(g, verify(ad.fused(g, seed=1.0)) if scalar else None)
