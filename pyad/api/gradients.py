"""The gradient units of one signature and one argnums: the fused value-and-gradient kernel
(cotangent 1.0: `grad`, `value_and_grad`) and the forward/backward pair (`pullback`), each
compiled, or loaded from the on-disk cache, on first use. The fused kernel runs without
strong zeros; when a gradient holds a nan, its wrappers call the one with them ('vg_safe',
compiled then: ad/gradient.py, `fused_parts`). The gradient IR is made only when a
unit has to be compiled (or is asked for: `fwd`, `bwd`, `fused`, `g`)."""
from __future__ import annotations

import threading
import weakref
from typing import Any, Callable

from ..ir.types import F64, is_array
from .boundary import weak_call

_GRADIENT_ENTRY = ("grad", "value_and_grad")


class GradientUnit:
    """See the module docstring. `spec` is the signature's Specialization (specialize.py)."""

    def __init__(self, spec, argnums, wrt: tuple[int, ...]) -> None:
        self.spec, self.argnums, self.wrt = spec, argnums, wrt
        self.lock = threading.RLock()
        self._gir = None
        self._units: dict[str, Any] = {}
        self._shadowed: bool | None = None
        self._probed = False  # the cache was looked up for 'vg' (a miss, if not in _units)

    # ------------------------------------------------------------------ the IR, on demand
    @property
    def gir(self):
        with self.lock:
            if self._gir is None:
                spec = self.spec
                with spec.timings.step(f"{spec.what} gradient IR"):
                    with spec.timings.phase("code generator import"):
                        from .. import pipeline  # import-time: loads with the first compile
                    self._gir = pipeline.gradient_ir(spec.func, self.wrt, spec.owner._budget,
                                                     spec.timings)
            return self._gir

    g = property(lambda self: self.gir.g)
    fwd = property(lambda self: self.gir.g.fwd)
    bwd = property(lambda self: self.gir.g.bwd)
    fused = property(lambda self: self.gir.fused)
    safe = property(lambda self: self.gir.safe or self.gir.fused)

    @property
    def scalar(self) -> bool:
        """The function returns a single float: grad and value_and_grad exist."""
        facts = self.spec.facts
        return facts.result_types == (F64,) and facts.shape == 0

    @property
    def shadowed(self) -> bool:
        """The forward sweep allocates shadows of the function's own arrays: every call of
        `back` zeroes them first."""
        if self._shadowed is None:
            from ..ir.nodes import Op, walk  # import-time: the IR's classes, made by compiling
            self._shadowed = any(isinstance(s, Op) and s.op == "alloc" and s.attrs == ("shadow",)
                                 for s in walk(self.fwd.block))
        return self._shadowed

    # ------------------------------------------------------------------ units
    def _compile(self, which: str):
        """The 'vg' unit (grad, value_and_grad), 'vg_safe' (the same with strong zeros) or
        the 'pullback' unit (fwd, bwd), on first use: a user of grad never pays for the
        pullback kernels, and vice versa."""
        unit = self._units.get(which)  # compiled already (entries are never replaced)
        if unit is not None:
            return unit
        with self.lock:
            if which in self._units:
                return self._units[which]
            spec = self.spec
            with spec.timings.step(f"{spec.what} {'gradient' if which == 'vg' else which}"):
                if which == "vg":
                    unit, _ = spec.unit("vg", self.argnums, self._vg_wrappers,
                                        lambda: self._kernels("vg"), dict, look=not self._probed)
                elif which == "vg_safe":
                    unit, _ = spec.unit("vg_safe", self.argnums,
                                        lambda: self._vg_wrappers(retry=False),
                                        lambda: self._kernels("vg_safe"), dict)
                else:
                    unit, more = spec.unit("pullback", self.argnums, self._pullback_wrappers,
                                           lambda: self._kernels("pullback"),
                                           lambda: {"shadowed": self.shadowed})
                    self._shadowed = more["shadowed"]
            self._units[which] = unit
            return unit

    def _kernels(self, which: str) -> list:
        from ..codegen.unit import KernelSpec  # import-time: no LLVM
        if which in ("vg", "vg_safe"):
            return [KernelSpec("vg", self.fused if which == "vg" else self.safe)]
        g = self.g
        return [KernelSpec("fwd", g.fwd, pack_saved=len(g.saved)),
                KernelSpec("bwd", g.bwd, unpack_saved=len(g.saved))]

    def _vg_wrappers(self, retry: bool = True) -> list:
        """The wrappers of the 'vg' unit: `retry`, what they call when the kernel asks for
        strong zeros (a cached kernel may, so every 'vg' wrapper has one)."""
        from ..codegen.unit import Shadow, WrapperSpec  # import-time: no LLVM
        spec, owner, argnums, wrt = self.spec, self.spec.owner, self.argnums, self.wrt
        # gradients of array arguments accumulate into zero shadows the wrapper makes
        gs = spec.grad_spec(argnums, wrt, 1, Shadow)
        shadows = tuple(p for p in wrt if is_array(spec.sig[p]))
        mine = argnums is owner.argnums  # the native f.grad / f.value_and_grad pickle as those
        return [
            WrapperSpec("grad", "vg", gs, f"gradient of {owner.__name__}",
                        weak_call(owner, "_dispatch_grad", argnums, False),
                        pickle_as=(owner, "grad") if mine else None, shadows=shadows,
                        retry=_safe_call(self, "grad") if retry else None),
            WrapperSpec("value_and_grad", "vg", (0, gs), f"value and gradient of {owner.__name__}",
                        weak_call(owner, "_dispatch_grad", argnums, True),
                        pickle_as=(owner, "value_and_grad") if mine else None, shadows=shadows,
                        retry=_safe_call(self, "value_and_grad") if retry else None),
        ]

    def _pullback_wrappers(self) -> list:
        from ..codegen.unit import WrapperSpec  # import-time: no LLVM
        spec, wrt = self.spec, self.wrt
        if spec.arrays or not spec.native_gradient(self.argnums):
            # flat gradients: ArrayPullback takes arrays from its shadows and builds the
            # structure
            back = tuple(None if is_array(spec.sig[p]) else k for k, p in enumerate(wrt))
        else:
            back = spec.grad_spec(self.argnums, wrt, 0)
        n = len(spec.facts.result_types)
        return [WrapperSpec("fwd", "fwd", tuple(range(n + 1))), WrapperSpec("bwd", "bwd", back)]

    def entry(self, which: str) -> Callable:
        """The native callable `which`: grad, value_and_grad, fwd or bwd."""
        if which in _GRADIENT_ENTRY and self.spec._facts is None and "vg" not in self._units:
            spec = self.spec
            with self.lock, spec.timings.step(f"{spec.what} gradient"):  # a hit tells the facts
                hit = spec.cached("vg", self.argnums, self._vg_wrappers)
                self._probed = True
                if hit is not None:
                    self._units.setdefault("vg", hit[0])
        if which in _GRADIENT_ENTRY and not self.scalar:
            raise TypeError(f"{which} requires {self.spec.owner.__name__} to return a single "
                            "float; use pullback for functions with several or integer results")
        unit = self._compile("vg" if which in _GRADIENT_ENTRY else "pullback")
        return unit.callables[which]

    def llvm_ir(self) -> str:
        units = [self._compile("pullback")] + ([self._compile("vg")] if self.scalar else [])
        return "\n".join(u.llvm_ir for u in units)


def _safe_call(unit: GradientUnit, which: str) -> Callable:
    """`which` of the unit's 'vg_safe' kernel (compiled on the first call), called with the
    arguments a 'vg' wrapper was given. Holds the unit weakly: the wrapper's code owner
    holds this function, and the unit holds the wrapper."""
    ref = weakref.ref(unit)

    def safe(*args):
        unit = ref()
        if unit is None:   # as the wrappers' fallback (boundary.weak_call)
            raise ReferenceError("the pyad.jit_grad function was deleted: this gradient "
                                 "holds a nan and the kernel with strong zeros, compiled "
                                 "from it on demand, cannot be made")
        return unit._compile("vg_safe").callables[which](*args)
    return safe
