"""The compiler's table of contents: the passes, in order, from a Python function to the IR
that `pyad.codegen` compiles. Every pass is `Func -> Func` (AD: `Func -> Gradient`), and the
verifier runs between passes.

The pipeline owns every IR transform: the backends (`pyad.codegen`, the interpreter
`pyad.ir.interp`) only read what it made, e.g. the forward and backward halves of natively
called functions (`Callee.gradient`), and take the call-depth limit as data."""
from __future__ import annotations

import threading
import types
from dataclasses import replace
from typing import Any

from . import ad
from .timings import Timings, phase
from .frontend import lower as frontend, recursion
from .ir import opt
from .ir.expand import expand
from .ir.scalarize import scalarize
from .ir.slice_loads import forward_slice_loads
from .ir.hoist import hoist_invariant
from .ir.shapes import fold_known
from .ir.nodes import F64, Func, Op, callees_of, walk
from .ir.verify import verify
from .ir.versioning import version_loops
from .ir.jam import jam_loops
from .ir.split_sums import split_sums


def primal_ir(fn: types.FunctionType, sig: tuple[str, ...], treedef=None,
              timings: Timings | None = None) -> tuple[Func, Any]:
    """Source -> typed SSA IR, simplified. Returns the Func and the shape of its result.
    `sig` are the types of the parameters' leaves, `treedef` their structure (one subtree per
    parameter; None: each parameter one leaf). `timings` (timings.py) gets the time of the
    phases."""
    with phase(timings, "frontend"):
        func, shape = frontend.lower(fn, sig, treedef)  # Python AST -> IR (located errors)
    with phase(timings, "IR optimization"):
        for c in callees_of(func):              # recursive callees, as lowered, in loops
            c.func = native(simplify(c.func))
        return simplify(func), shape


def native(func: Func, timings: Timings | None = None,
           outputs: frozenset[str] = frozenset()) -> Func:
    """What codegen compiles: whole-array primitives turned into element loops (after AD,
    which differentiates them at the array level), loops whose indices depend on
    broadcasting versioned for the case that nothing broadcasts, loops with independent
    trips around inner loops unrolled and jammed (ir/jam.py), and running sums split from
    the work of the loops computing their terms (ir/split_sums.py). `outputs`: the params
    that are gradients the callers discard when the call fails (split_sums)."""
    with phase(timings, "IR optimization"):
        func = opt.fold_constants(func)   # what AD rules compute from constants (`k - 1.0`)
        return verify(opt.dce(split_sums(jam_loops(version_loops(expand(func))), outputs)))


def simplify(func: Func) -> Func:
    """The clean-ups every lowered function gets (recursive callees too)."""
    func = verify(func)
    func = opt.fold_constants(func)         # constants, e.g. float(2) -> 2.0
    func = opt.cse(func)                    # repeated pure ops computed once
    func = opt.invariant_carried(func)      # values a loop passes through unchanged
    func = fold_known(func)                 # known sizes, comparisons, shape checks folded
    func = scalarize(func)                  # small arrays of known shape become scalars
    func = forward_slice_loads(func)        # loads through x[a:b] read x at offsets
    func = hoist_invariant(func)            # an outer loop's invariants computed before it
    func = opt.cse(func)
    func = opt.dead_carried(func)           # loop-carried values only the loop itself reads
    func = opt.dce(func)                    # unused values removed
    return verify(func)


class GradientIR:
    """The gradient of a function: `g` (forward half, which saves, and backward half, which
    reads the saved values and the cotangents), `fused` (forward and backward with
    cotangent 1.0, for a single float result, else None) and `safe` (`fused` with strong
    zeros, when `fused` raises StrongZeros, else None), each lowered for codegen (`native`)
    on first use: a user of `grad` never pays for the pullback's halves, nor for the
    strong-zero twin until a gradient holds a nan. Thread-safe."""

    def __init__(self, g: ad.Gradient, fused: Func | None, safe: Func | None,
                 timings: Timings | None, outputs: frozenset[str]) -> None:
        self._made = {"g": g, "fused": fused, "safe": safe}  # differentiated, not lowered
        self._native: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._timings, self._outputs = timings, outputs

    g = property(lambda self: self._part("g"))
    fused = property(lambda self: self._part("fused"))
    safe = property(lambda self: self._part("safe"))

    def _part(self, name: str):
        with self._lock:
            if name not in self._native:
                self._native[name] = self._lower(self._made[name])
            return self._native[name]

    def _lower(self, made):
        """`made` lowered for codegen, with the gradient halves of the callees it calls."""
        if made is None:
            return None
        t, out = self._timings, self._outputs
        if isinstance(made, ad.Gradient):
            g = replace(made, fwd=native(made.fwd, t, out), bwd=native(made.bwd, t, out))
            callee_gradients([g.fwd, g.bwd])
            return g
        f = native(verify(made), t, out)
        callee_gradients([f])
        return f


def gradient_ir(func: Func, wrt: tuple[int, ...], budget: ad.Budget | None = None,
                timings: Timings | None = None, inline: bool = False) -> GradientIR:
    """`budget`: taped loops keep their tape under it by checkpointing (ad/checkpoint.py).
    The fused kernel runs without strong zeros and asks for `safe` when a gradient holds a
    nan (ad.fused_parts); `inline` puts `safe` inside it (the C library, which has no
    Python to compile `safe` on demand)."""
    with phase(timings, "AD"):
        g = ad.differentiate(func, wrt, budget=budget)  # reverse sweep, saved values, CSE, DCE
        verify(g.fwd)
        verify(g.bwd)
        fused = safe = None
        shadows = frozenset(p.name for p in g.fwd.params[len(func.params):])
        if len(func.results) == 1 and func.results[0].type == F64:
            fused, safe = ad.fused_parts(g, seed=1.0, inline=inline)
        return GradientIR(g, fused, safe, timings, shadows)


def callee_gradients(funcs: list[Func]) -> None:
    """Give every callee that `funcs` call as `callfwd`/`callbwd`, directly or through the
    halves made here, its forward (pushes) and backward (pops) halves: `Callee.gradient`,
    which codegen and the interpreter read."""
    todo, done = list(funcs), set()
    while todo:
        for s in walk(todo.pop().block):
            if isinstance(s, Op) and s.op in ("callfwd", "callbwd") and s.attrs[0] not in done:
                done.add(s.attrs[0])
                halves = ad.callee_gradient(s.attrs[0])
                todo += [verify(h) for h in halves]


def max_call_depth() -> int:
    """The depth limit compiled into natively called (recursive) functions: past it they
    raise RecursionError. Read when a function is compiled (Python's recursion limit)."""
    return recursion.max_depth()
