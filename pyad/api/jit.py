"""The user-facing API: `@pyad.jit_grad` and the compiled-function object.

    @pyad.jit_grad                  # or @pyad.jit_grad(argnums=0, fastmath=True)
    def f(a, b): ...

    f(a, b)                         # native primal
    f.grad(a, b)                    # gradient: a tuple, one entry per parameter (None for ints)
    f.value_and_grad(a, b)          # (value, gradient)
    y, back = f.pullback(a, b)      # back(ct) -> gradient structure, callable many times

Each tuple of argument types (a signature: float -> f64, int -> i64, bool -> bool) is
compiled on first use and cached. The first compiled signature is called straight from a
native CPython wrapper (NumPy arrays included: those of the signature's dtypes and ndims are
read in place); any other arguments fall back to the Python dispatcher here, which converts
them, compiles or looks up the right specialization (and raises TypeError for bad arguments,
naming the parameter). The other signatures' wrappers are native too, behind the dispatcher.
"""
from __future__ import annotations

import functools
import inspect
import threading
import weakref
from typing import Any, Callable

import numpy as np

from .. import _runtime, pipeline, pytree
from . import arrays as api_arrays, pickling
from .boundary import keeps_internals, user_facing, without_internals
from .cache import ObjectCache
from ..errors import PyadError, PyadInternalError
from ..ir.nodes import BOOL, F64, I64, Op, is_array, walk

_GRADIENT_ENTRY = ("grad", "value_and_grad")


def signature_of(names: tuple[str, ...], fname: str, args: tuple) -> tuple[str, ...]:
    if len(args) != len(names):
        if len(args) < len(names):
            missing = ", ".join(repr(n) for n in names[len(args):])
            raise TypeError(f"{fname}() missing {len(names) - len(args)} required positional "
                            f"argument{'s' if len(names) - len(args) > 1 else ''}: {missing}")
        raise TypeError(f"{fname}() takes {len(names)} positional arguments but {len(args)} "
                        "were given")
    return tuple(_arg_type(fname, n, a) for n, a in zip(names, args))


def _arg_type(fname: str, name: str, a: Any) -> str:
    if isinstance(a, np.ndarray):
        return api_arrays.array_arg_type(fname, name, a)
    if isinstance(a, (bool, np.bool_)):
        return BOOL
    if isinstance(a, (int, np.integer)):
        if not -2**63 <= a < 2**63:
            raise OverflowError(f"{fname}() argument {name!r} does not fit in a 64-bit integer")
        return I64
    if isinstance(a, (float, np.floating)) and not isinstance(a, np.longdouble):
        return F64
    raise TypeError(f"{fname}() argument {name!r} must be a float, int, bool or numpy array, "
                    f"not {type(a).__name__}")


def nothing_to_differentiate(fname: str, names: tuple[str, ...], sig: tuple[str, ...]) -> str:
    """The message for a gradient asked where no argument is differentiated (`f.grad(2)`)."""
    given = ", ".join(f"{n}: {t}" for n, t in zip(names, sig)) or "no arguments"
    return (f"nothing to differentiate: the gradient of {fname} is taken with respect to "
            f"float arguments, and none is differentiated here ({given}); pass floats (2.0, "
            "not 2) or float arrays for the arguments to differentiate")


class _Specialization:
    """Everything compiled for one signature."""

    def __init__(self, owner: "JitGrad", sig: tuple[str, ...]) -> None:
        self.owner, self.sig = owner, sig
        self.func, self.shape = pipeline.primal_ir(owner.fn, sig)
        # arrays in or out (the pullback keeps copies of the arguments and shadow arrays)
        self.arrays = any(is_array(v.type) for v in self.func.params + self.func.results)
        self.lock = threading.Lock()
        self.primal_unit = None
        self.grads: dict[tuple[int, ...], Any] = {}

    # ------------------------------------------------------------------ primal
    def primal(self) -> Callable:
        with self.lock:
            if self.primal_unit is None:
                # import-time: llvmlite loads on the first compile, `import pyad` stays fast
                from ..codegen.build import KernelSpec, WrapperSpec, compile_unit
                self.primal_unit = compile_unit(
                    self.func.name, [KernelSpec("primal", pipeline.native(self.func))],
                    [WrapperSpec("primal", "primal", self.shape, self.owner.__doc__ or "",
                                 _weak_call(self.owner, "_dispatch_call"),
                                 pickle_as=(self.owner, "__call__"))],
                    fastmath=self.owner.fastmath, boundscheck=self.owner.boundscheck,
                    pyname=self.owner.__name__, object_cache=self.owner._object_cache,
                    max_depth=pipeline.max_call_depth())
            return self.primal_unit.callables["primal"]

    # ------------------------------------------------------------------ gradients
    def wrt(self, argnums) -> tuple[int, ...]:
        n = len(self.sig)
        names = self.func.arg_names
        if argnums is None:
            return tuple(i for i, t in enumerate(self.sig) if t.startswith(F64))
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for k in nums:
            if not -n <= k < n:
                raise ValueError(f"argnums {k} is out of range for {n} parameters")
            if self.sig[k] not in (F64, "f64[1d]", "f64[2d]", "f64[3d]"):
                raise TypeError(f"cannot differentiate {self.owner.__name__} with respect to "
                                f"parameter {names[k]!r} of type {self.sig[k]} (only float "
                                "arguments have gradients): nothing to differentiate; pass a "
                                "float (2.0, not 2) to differentiate it")
        return tuple(sorted({k % n for k in nums}))

    def arrange(self, argnums, by_param: dict) -> Any:
        """The gradient structure for `argnums` from parameter index -> gradient."""
        n = len(self.sig)
        if argnums is None:
            return tuple(by_param.get(i) for i in range(n))
        if isinstance(argnums, int):
            return by_param[argnums % n]
        return tuple(by_param[k % n] for k in argnums)

    def grad_spec(self, argnums, wrt: tuple[int, ...], offset: int, shadow=None) -> Any:
        """Result spec of the gradient structure over kernel outs starting at `offset`; with
        `shadow` (pywrap.Shadow), gradients of array arguments are the wrapper's shadows."""
        arrays = [p for p in wrt if is_array(self.sig[p])]
        pos = {p: shadow(arrays.index(p)) if shadow and p in arrays else offset + k
               for k, p in enumerate(wrt)}
        if argnums is None:
            return tuple(pos.get(i) for i in range(len(self.sig)))
        if isinstance(argnums, int):
            return pos[argnums % len(self.sig)]
        return tuple(pos[k % len(self.sig)] for k in argnums)

    def gradient(self, argnums):
        key = argnums if isinstance(argnums, (int, type(None))) else tuple(argnums)
        g = self.grads.get(key)  # entries are never replaced: no lock needed to read one
        if g is not None:
            return g
        with self.lock:
            if key in self.grads:
                return self.grads[key]
            wrt = self.wrt(argnums)
            self.grads[key] = g = _GradientUnit(self, argnums, wrt)
            return g


class _GradientUnit:
    """The gradient kernels of one signature and one argnums: fused value-and-gradient with
    cotangent 1.0 (grad, value_and_grad) and the forward/backward pair (pullback)."""

    def __init__(self, spec: _Specialization, argnums, wrt: tuple[int, ...]) -> None:
        func = spec.func
        self.spec, self.argnums, self.wrt = spec, argnums, wrt
        gir = pipeline.gradient_ir(func, wrt)
        self.g, self.fwd, self.bwd, self.fused = gir.g, gir.g.fwd, gir.g.bwd, gir.fused
        self.scalar = self.fused is not None and spec.shape == 0
        # the forward sweep allocates shadows of the function's own arrays: every call of
        # `back` zeroes them first (known here, not looked up per call)
        self.shadowed = any(isinstance(s, Op) and s.op == "alloc" and s.attrs == ("shadow",)
                            for s in walk(self.fwd.block))
        self.lock = threading.Lock()
        self._units: dict[str, Any] = {}

    def _compile(self, which: str):
        """Compile the 'vg' unit (grad, value_and_grad) or the 'pullback' unit (fwd, bwd)
        on first use: a user of grad never pays for the pullback kernels, and vice versa."""
        unit = self._units.get(which)  # compiled already (entries are never replaced)
        if unit is not None:
            return unit
        # import-time: llvmlite loads on the first compile, `import pyad` stays fast
        from ..codegen.build import KernelSpec, WrapperSpec, compile_unit
        from ..codegen.python.wrap import Shadow
        with self.lock:
            if which in self._units:
                return self._units[which]
            spec, owner, g, argnums, wrt = self.spec, self.spec.owner, self.g, self.argnums, self.wrt
            if which == "vg":
                # gradients of array arguments accumulate into zero shadows the wrapper makes
                gs = spec.grad_spec(argnums, wrt, 1, Shadow)
                shadows = tuple(p for p in wrt if is_array(spec.sig[p]))
                kernels = [KernelSpec("vg", self.fused)]
                # the native f.grad / f.value_and_grad pickle as those attributes of f
                mine = argnums is owner.argnums
                wrappers = [
                    WrapperSpec("grad", "vg", gs, f"gradient of {owner.__name__}",
                                _weak_call(owner, "_dispatch_grad", argnums, False),
                                pickle_as=(owner, "grad") if mine else None, shadows=shadows),
                    WrapperSpec("value_and_grad", "vg", (0, gs),
                                f"value and gradient of {owner.__name__}",
                                _weak_call(owner, "_dispatch_grad", argnums, True),
                                pickle_as=(owner, "value_and_grad") if mine else None,
                                shadows=shadows),
                ]
            else:
                kernels = [KernelSpec("fwd", g.fwd, pack_saved=len(g.saved)),
                           KernelSpec("bwd", g.bwd, unpack_saved=len(g.saved))]
                if spec.arrays:  # flat gradients; ArrayPullback takes arrays from its shadows
                    back = tuple(None if is_array(spec.sig[p]) else k for k, p in enumerate(wrt))
                else:
                    back = spec.grad_spec(argnums, wrt, 0)
                wrappers = [WrapperSpec("fwd", "fwd", tuple(range(len(spec.func.results) + 1))),
                            WrapperSpec("bwd", "bwd", back)]
            unit = compile_unit(f"{spec.func.name}.{which}", kernels, wrappers,
                                fastmath=owner.fastmath, boundscheck=owner.boundscheck,
                                pyname=owner.__name__, object_cache=owner._object_cache,
                                max_depth=pipeline.max_call_depth())
            self._units[which] = unit
            return unit

    def entry(self, which: str) -> Callable:
        """The native callable `which`: grad, value_and_grad, fwd or bwd."""
        if which in _GRADIENT_ENTRY and not self.scalar:
            raise TypeError(f"{which} requires {self.spec.owner.__name__} to return a single "
                            "float; use pullback for functions with several or integer results")
        if which in _GRADIENT_ENTRY and not self.wrt:
            raise TypeError(nothing_to_differentiate(self.spec.owner.__name__,
                                                     self.spec.func.arg_names, self.spec.sig))
        unit = self._compile("vg" if which in _GRADIENT_ENTRY else "pullback")
        return unit.callables[which]

    def llvm_ir(self) -> str:
        units = [self._compile("pullback")] + ([self._compile("vg")] if self.scalar else [])
        return "\n".join(u.llvm_ir for u in units)


class Pullback:
    """`back` of `y, back = f.pullback(*args)`: maps a cotangent shaped like `y` to the
    gradient structure. Owns the saved values (freed when collected); may be called any
    number of times, also after the compiled function is gone."""

    __slots__ = ("_bwd", "_addr", "_shape", "_types", "_free", "_zero", "__weakref__")

    @property
    def tape_bytes(self) -> int:
        """Bytes the forward sweep pushed on the AD tape (0 for straight-line code)."""
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


class JitGrad:
    """A compiled function with its gradients; see the module docstring."""

    # `__call__` is a per-instance slot, not a method: it holds a dispatcher until the first
    # signature is compiled, then that signature's native wrapper, which `f(...)` reaches
    # through the slot with no Python frame in between (about 40 ns a call).
    __slots__ = ("__call__", "__dict__", "__weakref__")

    def __init__(self, fn: Callable, *, argnums=None, fastmath: bool = False,
                 boundscheck: bool = True, cache: bool = False) -> None:
        if not inspect.isfunction(fn):
            raise TypeError(f"pyad.jit_grad expects a Python function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.argnums = argnums
        self.fastmath = fastmath
        self.boundscheck = boundscheck
        self.cache = bool(cache)
        self._object_cache = None
        if self.cache:
            self._object_cache = ObjectCache(fastmath=fastmath, boundscheck=boundscheck)
        self._names = tuple(inspect.signature(fn).parameters)
        self._specs: dict[tuple[str, ...], _Specialization] = {}
        self._first: _Specialization | None = None  # the signature with the native fast path
        self._lock = threading.Lock()
        self.__call__ = _weak_call(self, "_dispatch_call")

    @property
    def __pyad_wrapped__(self) -> Callable:
        """The plain Python function (how other layers recognise a compiled function
        without importing this module)."""
        return self.fn

    # ---------------------------------------------------------------- dispatch
    def specialization(self, args: tuple) -> _Specialization:
        sig = signature_of(self._names, self.__name__, args)
        spec = self._specs.get(sig)
        if spec is None:
            with self._lock:
                spec = self._specs.get(sig)
                if spec is None:
                    spec = _guard(lambda: _Specialization(self, sig))
                    if self._first is None:
                        self._first = spec
                    self._specs[sig] = spec
        return spec

    def _convert(self, spec: _Specialization, args: tuple) -> tuple:
        return tuple(api_arrays.convert(t, a) for t, a in zip(spec.sig, args))

    def _dispatch_call(self, *args):
        spec = self.specialization(args)
        fn = _guard(spec.primal)
        if spec is self._first:
            self.__call__ = fn  # the first signature gets the native fast path
        return _call_converted(fn, self._convert(spec, args))

    def _dispatch_grad(self, argnums, with_value: bool, *args):
        spec = self.specialization(args)
        unit = _guard(lambda: spec.gradient(argnums))
        which = "value_and_grad" if with_value else "grad"
        fn = _guard(lambda: unit.entry(which))
        if argnums is self.argnums and spec is self._first:
            self.__dict__[which] = fn  # native fast path for later calls
        return _call_converted(fn, self._convert(spec, args))

    @user_facing
    def grad(self, *args):
        """The gradient at `args` (structure set by `argnums`)."""
        return self._dispatch_grad(self.argnums, False, *args)

    @user_facing
    def value_and_grad(self, *args):
        """`(f(*args), grad(*args))` computed in one native call."""
        return self._dispatch_grad(self.argnums, True, *args)

    @user_facing
    def pullback(self, *args):
        """`(y, back)`: the value and a function mapping a cotangent of `y` to gradients."""
        return self._pullback(self.argnums, *args)

    def _pullback(self, argnums, *args):
        spec = self.specialization(args)
        unit = _guard(lambda: spec.gradient(argnums))
        fwd, bwd = _guard(lambda: (unit.entry("fwd"), unit.entry("bwd")))
        args = self._convert(spec, args)
        if spec.arrays:
            # the pullback reads the arrays later: it keeps private copies of them
            args = tuple(a.copy() if is_array(t) else a for t, a in zip(spec.sig, args))
            shadows = api_arrays.shadows_for(spec.sig, unit.wrt, args)
            out = fwd(*args, *shadows)
            back = ArrayPullback(bwd, out[-1], spec.shape,
                                 tuple(r.type for r in spec.func.results), unit.shadowed)
            back.setup(spec, unit, shadows, out[:-1], args)
        else:
            out = fwd(*args)
            back = Pullback(bwd, out[-1], spec.shape, tuple(r.type for r in spec.func.results),
                            unit.shadowed)
        return pytree.gather(spec.shape, out[:-1]), back

    @user_facing
    def tape_bytes(self, *args) -> int:
        """Bytes of AD tape one gradient call at `args` uses (values saved by loops)."""
        return self.pullback(*args)[1].tape_bytes

    # ---------------------------------------------------------------- introspection
    @user_facing
    def ir(self, *args) -> str:
        """The primal IR for the signature of `args`."""
        return str(self.specialization(args).func)

    @user_facing
    def grad_ir(self, *args) -> str:
        """The forward and backward IR (and the fused value-and-gradient IR when the result
        is a single float) for the signature of `args`."""
        unit = _guard(lambda: self.specialization(args).gradient(self.argnums))
        parts = [str(unit.fwd), str(unit.bwd)] + ([str(unit.fused)] if unit.fused else [])
        return "\n".join(parts)

    @user_facing
    def llvm_ir(self, *args, gradient: bool = False) -> str:
        """The optimized LLVM IR of the primal (or of the gradient kernels)."""
        spec = self.specialization(args)
        if gradient:
            return _guard(lambda: spec.gradient(self.argnums).llvm_ir())
        _guard(spec.primal)
        return spec.primal_unit.llvm_ir

    def __repr__(self) -> str:
        return f"<pyad.jit_grad {self.__qualname__}>"

    def __reduce__(self):
        # by reference (module + qualified name); see pyad/api/pickling.py
        return pickling.reduce_jit_grad(self)


def _weak_call(owner: "JitGrad", method: str, *prefix) -> Callable:
    """A fallback for native wrappers that does not keep `owner` alive: compiled code (and
    the pullbacks holding it) may outlive the JitGrad object."""
    ref = weakref.ref(owner)

    def call(*args):
        __tracebackhide__ = True  # a user's entry point (boundary.py)
        obj = ref()
        if obj is None:
            raise ReferenceError("the pyad.jit_grad function was deleted")
        if getattr(_converted, "active", False):
            raise PyadInternalError("internal compiler error: a compiled function refused the "
                                    "arguments its dispatcher had converted for it")
        try:
            return getattr(obj, method)(*prefix, *args)
        except Exception as exc:  # the user's entry point: see boundary.py
            if keeps_internals(exc):
                raise
            raise without_internals(exc)
    return call


# Set while a dispatcher calls native code with converted arguments: the wrapper must accept
# them, and if it handed them back to its fallback instead, the two would recurse forever.
# (Kernels never call Python, so nothing else can reach a fallback in between.)
_converted = threading.local()


def _call_converted(fn: Callable, args: tuple):
    _converted.active = True
    try:
        return fn(*args)
    finally:
        _converted.active = False


def _guard(thunk: Callable):
    """Run compiler code; report unexpected exceptions as pyad internal errors."""
    try:
        return thunk()
    except (PyadError, TypeError, ValueError):
        raise
    except Exception as exc:  # a bug in pyad: never surface a bare KeyError/AttributeError
        raise PyadInternalError(f"internal compiler error: {type(exc).__name__}: {exc}") from exc


def jit_grad(fn: Callable | None = None, *, argnums=None, fastmath: bool = False,
             boundscheck: bool = True, cache: bool = False):
    """Compile `fn` and its gradient. Use as `@jit_grad` or `@jit_grad(argnums=..., ...)`.
    `fastmath` lets LLVM reassociate floating point; `boundscheck=False` drops the index
    checks of array accesses (out-of-bounds access is then undefined behaviour). `cache=True`
    stores the compiled object code on disk (`pyad.cache_dir()`, keyed by the content of the
    generated code, so an edited function never loads a stale entry) and loads it in later
    processes instead of running LLVM again; `pyad.clear_cache()` empties it."""
    def wrap(f: Callable) -> JitGrad:
        return JitGrad(f, argnums=argnums, fastmath=fastmath, boundscheck=boundscheck,
                       cache=cache)
    return wrap(fn) if fn is not None else wrap
