"""`back` of `y, back = f.pullback(*args)`: maps a cotangent shaped like `y` (a number,
array or container of them) to the gradient structure, from the saved values of the forward
sweep, which it owns (a pullback struct of the C runtime)."""
from __future__ import annotations

import functools
from typing import Callable

from .. import _runtime, pytree
from . import arrays as api_arrays
from ..ir.types import F64


class Pullback:
    """`back` of `y, back = f.pullback(*args)`: maps a cotangent shaped like `y` to the
    gradient structure. Owns the saved values (freed when collected); may be called any
    number of times, also after the compiled function is gone."""

    __slots__ = ("_bwd", "_addr", "_shape", "_types", "_free", "_zero", "__weakref__")

    @property
    def tape_bytes(self) -> int:
        """The most bytes the forward sweep held on the AD tape (0 for straight-line code):
        what it pushed, or under a budget (max_tape_bytes) its peak between checkpoints."""
        return int(_runtime.dll().pyad_pullback_tape_bytes(self._addr))

    def __init__(self, bwd: Callable, addr: int, shape, types: tuple[str, ...],
                 shadowed: bool = True) -> None:
        self._bwd, self._addr, self._shape, self._types = bwd, addr, shape, types
        self._free = _pullback_free()
        self._zero = _pullback_zero_shadows() if shadowed else None

    def __call__(self, ct):
        flat = pytree.flatten_like(self._shape, ct, "cotangent")
        cts = [float(c) for c, t in zip(flat, self._types) if t == F64]
        # the backward sweep adds into the shadows of the function's own arrays: each call
        # starts them from zero (whole-array adjoints read a result's shadow entire)
        if self._zero is not None:
            self._zero(self._addr)
        return self._bwd(self._addr, *cts)

    def __del__(self) -> None:
        addr, self._addr = self._addr, 0
        if addr:
            self._free(addr)

    def __reduce__(self):
        raise TypeError("a pyad pullback cannot be pickled or copied: it owns native memory "
                        "(the saved values) of this process; send the function and its "
                        "arguments instead and call f.pullback(*args) on the other side")


class ArrayPullback(Pullback):
    """`back` for signatures with arrays: cotangents of array results are arrays; gradients
    of array arguments are accumulated in shadow arrays, zeroed before every call."""

    __slots__ = ("_spec", "_unit", "_shadows", "_results", "_args")

    def setup(self, spec, unit, shadows: list, results: list, args: tuple) -> None:
        self._spec, self._unit, self._shadows, self._results = spec, unit, shadows, results
        self._args = args  # the backward sweep reads these arrays

    def __call__(self, ct):
        flat = pytree.flatten_like(self._shape, ct, "cotangent")
        cts = [api_arrays.check_cotangent(t, y, c, k) for k, (c, t, y)
               in enumerate(zip(flat, self._types, self._results)) if t.startswith(F64)]
        for sh in self._shadows:
            sh.fill(0.0)
        if self._zero is not None:
            self._zero(self._addr)
        outs = self._bwd(self._addr, *cts)
        grads = api_arrays.gradients(self._spec.sig, self._unit.wrt, outs,
                                     [sh.copy() for sh in self._shadows])
        return self._spec.arrange(self._unit.argnums, grads)


@functools.lru_cache(maxsize=None)
def _pullback_free() -> Callable[[int], None]:
    return _runtime.dll().pyad_pullback_free


@functools.lru_cache(maxsize=None)
def _pullback_zero_shadows() -> Callable[[int], None]:
    return _runtime.dll().pyad_pullback_zero_shadows
