"""The user-facing API: `@pyad.jit_grad` and the compiled-function object.

    @pyad.jit_grad                  # or @pyad.jit_grad(argnums=(0, 1), fastmath=True)
    def f(a, b, scale=1.0): ...

    f(a, b)                         # native primal; f(a, b, scale=2.0) too
    f.grad(a, b)                    # gradient of argument 0, bare (as jax.grad)
    f.value_and_grad(a, b)          # (value, gradient)
    y, back = f.pullback(a, b)      # back(ct) -> gradient structure, callable many times

`argnums` is an int (the gradient bare), a tuple of ints (a tuple) or "all" (a tuple with one
entry per parameter, None for parameters without float leaves); parameters are counted in
the order of the `def` (`*args` is one parameter, keyword-only parameters come last).

A call is bound to the parameters (binding.py: keywords, defaults, `*args`); each structure
of the bound values and tuple of leaf types (float -> f64, int -> i64, bool -> bool, arrays,
None and containers in the structure) is a signature, compiled on first use and cached. The
first compiled signature whose wrappers take the Python arguments as they are (positional
parameters holding numbers and arrays, a result of numbers, arrays and tuples) is called
straight from a native CPython wrapper (NumPy arrays of its dtypes and ndims are read in
place); other calls (keywords, defaults left out, other types) fall back to the Python
dispatcher here, which binds and converts them, compiles or looks up the right
specialization (and raises TypeError for bad arguments, naming the parameter).
"""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable


from .. import ad, pipeline, pytree
from ..timings import Timings, phase
from . import arrays as api_arrays, binding, methods, pickling
from .boundary import call_converted, guard, user_facing, weak_call
from .pullback import ArrayPullback, Pullback
from .cache import ObjectCache
from ..ir.nodes import F64, Op, is_array, walk

_GRADIENT_ENTRY = ("grad", "value_and_grad")
_FLOAT_TYPES = (F64, "f64[1d]", "f64[2d]", "f64[3d]")


def check_argnums(argnums) -> None:
    """TypeError unless `argnums` is an int, a non-empty tuple of ints or "all"."""
    if argnums == "all" and isinstance(argnums, str):
        return
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return
    if isinstance(argnums, (tuple, list)) and argnums and \
            all(isinstance(k, int) and not isinstance(k, bool) for k in argnums):
        return
    raise TypeError(f"argnums must be an int, a non-empty tuple of ints or 'all', not "
                    f"{argnums!r}")


def _has_record(tree) -> bool:
    """Whether a compiler-side tree (a result shape, a gradient structure) holds a Record."""
    if isinstance(tree, pytree.Record):
        return True
    return isinstance(tree, tuple) and any(map(_has_record, tree))


class _Specialization:
    """Everything compiled for one signature: the leaf types `sig` of the bound arguments and
    their structure `treedef` (a tuple with one subtree per parameter)."""

    def __init__(self, owner: "JitGrad", sig: tuple[str, ...], treedef=None) -> None:
        n = len(owner._params.names)
        self.owner, self.sig = owner, sig
        self.treedef = (pytree.LEAF,) * n if treedef is None else treedef
        #: where this signature's compile time went (pyad/timings.py, `JitGrad.timings()`)
        self.timings = Timings()
        self.what = f"{owner.__name__}({', '.join(sig)})"
        with self.timings.step(f"{self.what} primal IR"):
            self.func, self.shape = pipeline.primal_ir(owner.fn, sig, self.treedef,
                                                       self.timings)
        # arrays in or out (the pullback keeps copies of the arguments and shadow arrays)
        self.arrays = any(is_array(v.type) for v in self.func.params + self.func.results)
        # the leaves of parameter p are sig[spans[p][0]:spans[p][1]]
        counts = [len(pytree.leaves(t)) for t in self.treedef]
        starts = [sum(counts[:p]) for p in range(n)]
        self.spans = [(a, a + c) for a, c in zip(starts, counts)]
        #: the native wrappers build the result themselves (numbers, arrays, tuples)
        self.native_result = not _has_record(self.shape)
        #: the Python arguments are the kernel's, in order: the native wrapper may be called
        #: by the user directly
        self.direct = owner._params.plain and self.treedef == (pytree.LEAF,) * n \
            and self.native_result
        self.lock = threading.Lock()
        self.primal_unit = None
        self.grads: dict[Any, Any] = {}
        self._native: dict[Any, bool] = {}  # argnums -> native_gradient
    # ------------------------------------------------------------------ primal
    def primal(self) -> Callable:
        with self.lock:
            if self.primal_unit is None:
                with self.timings.step(f"{self.what} primal"):
                    with phase(self.timings, "code generator import"):
                        # import-time: llvmlite loads on the first compile, not with pyad
                        from ..codegen.build import KernelSpec, WrapperSpec, compile_unit
                    result = self.shape if self.native_result \
                        else tuple(range(len(self.func.results)))
                    kernel = pipeline.native(self.func, self.timings)
                    self.primal_unit = compile_unit(
                        self.func.name, [KernelSpec("primal", kernel)],
                        [WrapperSpec("primal", "primal", result, self.owner.__doc__ or "",
                                     weak_call(self.owner, "_dispatch_call"),
                                     pickle_as=(self.owner, "__call__"))],
                        fastmath=self.owner.fastmath, boundscheck=self.owner.boundscheck,
                        pyname=self.owner.__name__, object_cache=self.owner._object_cache,
                        max_depth=pipeline.max_call_depth(), timings=self.timings)
            return self.primal_unit.callables["primal"]

    def result(self, out) -> Any:
        """The user's result from the primal wrapper's."""
        return out if self.native_result else pytree.to_python(pytree.gather(self.shape, out))

    # ------------------------------------------------------------------ gradients
    def params_of(self, argnums) -> tuple[int, ...]:
        """The parameter indices `argnums` selects (validated)."""
        names = self.owner._params.names
        n = len(names)
        every = argnums in ("all", methods.ALL_BUT_SELF)
        is_self = n and isinstance(self.treedef[0], pytree.Record) \
            and self.treedef[0].kind == "object"
        first = 1 if argnums == methods.ALL_BUT_SELF or is_self else 0
        leaves = self.sig[self.spans[first][0]:] if n > first else ()  # `self` never counts
        if not any(t in _FLOAT_TYPES for t in leaves):
            raise TypeError(f"{self.owner.__name__}: nothing to differentiate: no argument is "
                            "a float or a float array (ints and bools have no gradient); "
                            "pass floats, e.g. 2.0 instead of 2")
        if every:
            return tuple(range(first, n))
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for k in nums:
            if not -n <= k < n:
                raise ValueError(f"argnums {k} is out of range for {n} parameters")
            lo, hi = self.spans[k % n]
            if not any(t in _FLOAT_TYPES for t in self.sig[lo:hi]):
                what = self.sig[lo] if hi == lo + 1 else "without float leaves"
                raise TypeError(f"cannot differentiate {self.owner.__name__} with respect to "
                                f"parameter {names[k % n]!r} of type {what} (only float "
                                "arguments have gradients): nothing to differentiate; pass a "
                                "float (2.0, not 2) to differentiate it")
        return tuple(k % n for k in nums)

    def wrt(self, argnums) -> tuple[int, ...]:
        """The float leaves (kernel parameters) differentiated for `argnums`."""
        return tuple(j for p in sorted(set(self.params_of(argnums)))
                     for j in range(*self.spans[p]) if self.sig[j] in _FLOAT_TYPES)

    def arrange_tree(self, argnums, by_leaf: dict) -> Any:
        """The gradient structure for `argnums` from leaf index -> gradient (None for the
        leaves not differentiated), with Records for the user's containers."""
        def of(p: int) -> Any:
            lo, hi = self.spans[p]
            return pytree.unflatten(self.treedef[p], (by_leaf.get(j) for j in range(lo, hi)))
        n = len(self.treedef)
        if argnums in ("all", methods.ALL_BUT_SELF):
            return tuple(of(p) for p in range(argnums != "all", n))
        if isinstance(argnums, int):
            return of(argnums % n)
        return tuple(of(k % n) for k in argnums)

    def arrange(self, argnums, by_leaf: dict) -> Any:
        """The gradient structure for `argnums`, as the user's containers."""
        return pytree.to_python(self.arrange_tree(argnums, by_leaf))

    def native_gradient(self, argnums) -> bool:
        """Whether the wrappers can build the gradient structure (no containers but tuples)."""
        key = argnums if isinstance(argnums, (int, str)) else tuple(argnums)
        native = self._native.get(key)
        if native is None:
            native = self._native[key] = not _has_record(self.arrange_tree(argnums, {}))
        return native

    def grad_spec(self, argnums, wrt: tuple[int, ...], offset: int, shadow=None) -> Any:
        """Result spec of the gradient structure over kernel outs starting at `offset`; with
        `shadow` (pywrap.Shadow), gradients of array arguments are the wrapper's shadows.
        Flat (one entry per `wrt` leaf) where the structure holds containers."""
        arrays = [p for p in wrt if is_array(self.sig[p])]
        pos = {p: shadow(arrays.index(p)) if shadow and p in arrays else offset + k
               for k, p in enumerate(wrt)}
        if not self.native_gradient(argnums):
            return tuple(pos[p] for p in wrt)
        return self.arrange_tree(argnums, pos)

    def gradient(self, argnums):
        key = argnums if isinstance(argnums, (int, str)) else tuple(argnums)
        g = self.grads.get(key)  # entries are never replaced: no lock needed to read one
        if g is not None:
            return g
        with self.lock:
            if key in self.grads:
                return self.grads[key]
            wrt = self.wrt(argnums)
            with self.timings.step(f"{self.what} gradient IR"):
                self.grads[key] = g = _GradientUnit(self, argnums, wrt)
            return g


class _GradientUnit:
    """The gradient kernels of one signature and one argnums: fused value-and-gradient with
    cotangent 1.0 (grad, value_and_grad) and the forward/backward pair (pullback)."""

    def __init__(self, spec: _Specialization, argnums, wrt: tuple[int, ...]) -> None:
        func = spec.func
        self.spec, self.argnums, self.wrt = spec, argnums, wrt
        gir = pipeline.gradient_ir(func, wrt, spec.owner._budget, spec.timings)
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
        with self.lock:
            if which in self._units:
                return self._units[which]
            timings = self.spec.timings
            with timings.step(f"{self.spec.what} {'gradient' if which == 'vg' else which}"):
                unit = self._compile_now(which, timings)
            self._units[which] = unit
            return unit

    def _compile_now(self, which: str, timings: Timings):
        """The unit `which` ('vg' or 'pullback'), compiled (under the lock)."""
        with phase(timings, "code generator import"):
            # import-time: llvmlite loads on the first compile, `import pyad` stays fast
            from ..codegen.build import KernelSpec, WrapperSpec, compile_unit
            from ..codegen.python.wrap import Shadow
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
                            weak_call(owner, "_dispatch_grad", argnums, False),
                            pickle_as=(owner, "grad") if mine else None, shadows=shadows),
                WrapperSpec("value_and_grad", "vg", (0, gs),
                            f"value and gradient of {owner.__name__}",
                            weak_call(owner, "_dispatch_grad", argnums, True),
                            pickle_as=(owner, "value_and_grad") if mine else None,
                            shadows=shadows),
            ]
        else:
            kernels = [KernelSpec("fwd", g.fwd, pack_saved=len(g.saved)),
                       KernelSpec("bwd", g.bwd, unpack_saved=len(g.saved))]
            if spec.arrays or not spec.native_gradient(argnums):
                # flat gradients: ArrayPullback takes arrays from its shadows and builds
                # the structure
                back = tuple(None if is_array(spec.sig[p]) else k for k, p in enumerate(wrt))
            else:
                back = spec.grad_spec(argnums, wrt, 0)
            wrappers = [WrapperSpec("fwd", "fwd", tuple(range(len(spec.func.results) + 1))),
                        WrapperSpec("bwd", "bwd", back)]
        return compile_unit(f"{spec.func.name}.{which}", kernels, wrappers,
                            fastmath=owner.fastmath, boundscheck=owner.boundscheck,
                            pyname=owner.__name__, object_cache=owner._object_cache,
                            max_depth=pipeline.max_call_depth(), timings=timings)

    def entry(self, which: str) -> Callable:
        """The native callable `which`: grad, value_and_grad, fwd or bwd."""
        if which in _GRADIENT_ENTRY and not self.scalar:
            raise TypeError(f"{which} requires {self.spec.owner.__name__} to return a single "
                            "float; use pullback for functions with several or integer results")
        unit = self._compile("vg" if which in _GRADIENT_ENTRY else "pullback")
        return unit.callables[which]

    def llvm_ir(self) -> str:
        units = [self._compile("pullback")] + ([self._compile("vg")] if self.scalar else [])
        return "\n".join(u.llvm_ir for u in units)


class JitGrad:
    """A compiled function with its gradients; see the module docstring."""

    # `__call__` is a per-instance slot, not a method: it holds a dispatcher until the first
    # signature is compiled, then that signature's native wrapper, which `f(...)` reaches
    # through the slot with no Python frame in between (about 40 ns a call).
    __slots__ = ("__call__", "__dict__", "__weakref__")

    def __init__(self, fn: Callable, *, argnums=0, fastmath: bool = False,
                 boundscheck: bool = True, cache: bool = False, max_tape_bytes=None) -> None:
        if isinstance(fn, JitGrad):  # recompiled with these options
            fn = fn.fn
        if not inspect.isfunction(fn):
            raise TypeError(f"pyad.jit_grad expects a Python function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        check_argnums(argnums)
        self.fn = fn
        self.argnums = argnums
        self.fastmath = fastmath
        self.boundscheck = boundscheck
        self.max_tape_bytes, self._budget = max_tape_bytes, ad.budget(max_tape_bytes)
        self.cache = bool(cache)
        self._object_cache = None
        if self.cache:
            self._object_cache = ObjectCache(fastmath=fastmath, boundscheck=boundscheck)
        self._params = binding.Params(fn, fn.__name__)
        self._flat_treedef = (pytree.LEAF,) * len(self._params.names)
        self._specs: dict[Any, _Specialization] = {}
        self._first: _Specialization | None = None  # the signature with the native fast path
        self._lock = threading.Lock()
        self.__call__ = weak_call(self, "_dispatch_call")

    def __get__(self, obj, objtype=None):
        """`instance.method` for a compiled method: bound to the instance (methods.py)."""
        return self if obj is None else methods.BoundJitGrad(self, obj)

    @property
    def __pyad_wrapped__(self) -> Callable:
        """The plain Python function (how other layers recognise a compiled function
        without importing this module)."""
        return self.fn

    # ---------------------------------------------------------------- dispatch
    def bind(self, args: tuple, kwargs: dict | None = None) -> tuple[_Specialization, list]:
        """The specialization for the call `(*args, **kwargs)` and the kernel's arguments
        (the leaves of the bound values, not yet converted)."""
        bound = self._params.bind(args, kwargs)
        leaves, treedef, sig = binding.describe(self._params, bound)
        key = sig if treedef == self._flat_treedef else (sig, treedef)
        spec = self._specs.get(key)
        if spec is None:
            with self._lock:
                spec = self._specs.get(key)
                if spec is None:
                    spec = guard(lambda: _Specialization(self, sig, treedef))
                    if self._first is None and spec.direct:
                        self._first = spec
                    self._specs[key] = spec
        return spec, leaves

    def specialization(self, args: tuple, kwargs: dict | None = None) -> _Specialization:
        return self.bind(args, kwargs)[0]

    def _convert(self, spec: _Specialization, leaves) -> tuple:
        return tuple(api_arrays.convert(t, a) for t, a in zip(spec.sig, leaves))

    def _dispatch_call(self, *args, **kwargs):
        spec, leaves = self.bind(args, kwargs)
        fn = guard(spec.primal)
        if spec is self._first:
            self.__call__ = fn  # the first direct signature gets the native fast path
        return spec.result(call_converted(fn, self._convert(spec, leaves)))

    def _dispatch_grad(self, argnums, with_value: bool, *args, **kwargs):
        spec, leaves = self.bind(args, kwargs)
        unit = guard(lambda: spec.gradient(argnums))
        which = "value_and_grad" if with_value else "grad"
        fn = guard(lambda: unit.entry(which))
        native = spec.native_gradient(argnums)
        if argnums is self.argnums and spec is self._first and native:
            self.__dict__[which] = fn  # native fast path for later calls
        out = call_converted(fn, self._convert(spec, leaves))
        if native:
            return out
        value, flat = out if with_value else (None, out)
        g = spec.arrange(argnums, dict(zip(unit.wrt, flat)))
        return (value, g) if with_value else g

    @user_facing
    def grad(self, *args, **kwargs):
        """The gradient at `args` (structure set by `argnums`)."""
        return self._dispatch_grad(self.argnums, False, *args, **kwargs)

    @user_facing
    def value_and_grad(self, *args, **kwargs):
        """`(f(*args), grad(*args))` computed in one native call."""
        return self._dispatch_grad(self.argnums, True, *args, **kwargs)

    @user_facing
    def pullback(self, *args, **kwargs):
        """`(y, back)`: the value and a function mapping a cotangent of `y` to gradients."""
        return self._pullback(self.argnums, *args, **kwargs)

    def _pullback(self, argnums, *args, **kwargs):
        spec, leaves = self.bind(args, kwargs)
        unit = guard(lambda: spec.gradient(argnums))
        fwd, bwd = guard(lambda: (unit.entry("fwd"), unit.entry("bwd")))
        args = self._convert(spec, leaves)
        types = tuple(r.type for r in spec.func.results)
        if spec.arrays or not spec.native_gradient(argnums):
            # the pullback reads the arrays later: it keeps private copies of them
            args = tuple(a.copy() if is_array(t) else a for t, a in zip(spec.sig, args))
            shadows = api_arrays.shadows_for(spec.sig, unit.wrt, args)
            out = fwd(*args, *shadows)
            back = ArrayPullback(bwd, out[-1], spec.shape, types, unit.shadowed)
            back.setup(spec, unit, shadows, out[:-1], args)
        else:
            out = fwd(*args)
            back = Pullback(bwd, out[-1], spec.shape, types, unit.shadowed)
        return pytree.to_python(pytree.gather(spec.shape, out[:-1])), back

    @user_facing
    def tape_bytes(self, *args) -> int:
        """The most bytes of AD tape one gradient call at `args` holds (its peak)."""
        return self.pullback(*args)[1].tape_bytes

    # ---------------------------------------------------------------- introspection
    @user_facing
    def ir(self, *args, **kwargs) -> str:
        """The primal IR for the signature of `args`."""
        return str(self.specialization(args, kwargs).func)

    @user_facing
    def grad_ir(self, *args, **kwargs) -> str:
        """The forward and backward IR (and the fused value-and-gradient IR when the result
        is a single float) for the signature of `args`."""
        unit = guard(lambda: self.specialization(args, kwargs).gradient(self.argnums))
        parts = [str(unit.fwd), str(unit.bwd)] + ([str(unit.fused)] if unit.fused else [])
        return "\n".join(parts)

    @user_facing
    def llvm_ir(self, *args, gradient: bool = False) -> str:
        """The optimized LLVM IR of the primal (or of the gradient kernels)."""
        spec = self.specialization(args)
        if gradient:
            return guard(lambda: spec.gradient(self.argnums).llvm_ir())
        guard(spec.primal)
        return spec.primal_unit.llvm_ir

    def timings(self) -> dict:
        """Where compile time went, per compiled signature: ``{signature: {phase: seconds,
        ..., "total": seconds}}`` (pyad/timings.py lists the phases). A signature is the
        tuple of the leaf types of the arguments (``('f64', 'i64')``), with their structure
        (``(types, treedef)``) where the arguments hold containers. `PYAD_TIMINGS=1` prints
        the same phases to stderr as each part is compiled."""
        with self._lock:
            specs = list(self._specs.items())
        return {key: spec.timings.as_dict() for key, spec in specs}

    def __repr__(self) -> str:
        return f"<pyad.jit_grad {self.__qualname__}>"

    def __reduce__(self):
        # by reference (module + qualified name); see pyad/api/pickling.py
        return pickling.reduce_jit_grad(self)


def jit_grad(fn: Callable | None = None, *, argnums=0, fastmath: bool = False,
             boundscheck: bool = True, cache: bool = False, max_tape_bytes: int | None = None):
    """Compile `fn` and its gradient. Use as `@jit_grad` or `@jit_grad(argnums=..., ...)`.
    `argnums` selects what `grad`, `value_and_grad` and `pullback` differentiate: an int
    (default 0: the first parameter, its gradient bare, as in JAX), a tuple of ints (a tuple
    of gradients) or "all" (a tuple with one entry per parameter, None where a parameter has
    no float leaves).
    `fastmath` lets LLVM reassociate floating point; `boundscheck=False` drops the index
    checks of array accesses (out-of-bounds access is then undefined behaviour). `cache=True`
    stores the compiled object code on disk (`pyad.cache_dir()`, keyed by the content of the
    generated code, so an edited function never loads a stale entry) and loads it in later
    processes instead of running LLVM again; `pyad.clear_cache()` empties it. `max_tape_bytes`
    keeps the AD tape under that many bytes by checkpointing loops (docs/gradients.md)."""
    def wrap(f: Callable) -> JitGrad | methods.BoundJitGrad:
        def compiled(fn: Callable) -> JitGrad:
            return JitGrad(fn, argnums=argnums, fastmath=fastmath, boundscheck=boundscheck,
                           cache=cache, max_tape_bytes=max_tape_bytes)
        if inspect.ismethod(f):  # a bound method: compiled once for its class, bound here
            return methods.BoundJitGrad(compiled(f.__func__), f.__self__)
        if isinstance(f, methods.BoundJitGrad):
            return f.rebound(compiled(f.fn))
        return compiled(f)
    return wrap(fn) if fn is not None else wrap
