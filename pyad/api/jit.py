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
None and containers in the structure) is a signature, compiled on first use -- or loaded from
the on-disk cache (specialize.py, cache.py) -- and kept. The first compiled signature whose wrappers take the Python arguments as they are (positional
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


from .. import pytree
from . import arrays as api_arrays, binding, cache as disk_cache, methods, pickling
from .boundary import (call_converted, guard, keeps_internals, user_facing, weak_call,
                       without_internals)
from .pullback import ArrayPullback, Pullback
from .specialize import Specialization
from ..ir.types import is_array


def check_argnums(argnums):
    """`argnums` (a list as a tuple, as JAX takes it); TypeError unless it is an int, a
    non-empty tuple of ints or "all"."""
    if argnums == "all" and isinstance(argnums, str):
        return argnums
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return argnums
    if isinstance(argnums, (tuple, list)) and argnums and \
            all(isinstance(k, int) and not isinstance(k, bool) for k in argnums):
        return tuple(argnums)
    raise TypeError(f"argnums must be an int, a non-empty tuple of ints or 'all', not "
                    f"{argnums!r}")


def _gradient_method(name: str, with_value: bool, doc: str):
    """`JitGrad.grad` or `.value_and_grad`: `_grad_entry` and `user_facing` written out in one
    frame, because a method taken before the first call (what `scipy.optimize.minimize(
    f.value_and_grad, jac=True)` keeps) runs it on every call: 841 -> 447 ns a call for a
    small loop (the native wrapper alone: 201 ns). `gradient_entry` is the same for the
    transforms."""
    def method(self, *args, **kwargs):
        __tracebackhide__ = True
        try:
            fn = self._native.get((self.argnums, with_value))
            if fn is not None:
                return fn(*args, **kwargs)
            return self._dispatch_grad(self.argnums, with_value, *args, **kwargs)
        except Exception as exc:
            if keeps_internals(exc):
                raise
            raise without_internals(exc)
    method.__name__, method.__qualname__, method.__doc__ = name, f"JitGrad.{name}", doc
    return method


def gradient_entry(jg, argnums, with_value: bool) -> Callable:
    """What `pyad.grad(f, argnums)` (`with_value`: `pyad.value_and_grad`) calls: for a
    `JitGrad`, `_grad_entry` and `user_facing` written out in one frame as in
    `_gradient_method` (scipy holds it and calls it every iteration: 801 -> ~200 ns a call
    for a small loop); for a bound method, its own `_grad_entry`."""
    if not isinstance(jg, JitGrad):
        return user_facing(functools.partial(jg._grad_entry, argnums, with_value))
    native, key = jg._native, (argnums, with_value)

    def entry(*args, **kwargs):
        __tracebackhide__ = True
        try:
            fn = native.get(key)
            if fn is not None:
                return fn(*args, **kwargs)
            return jg._dispatch_grad(argnums, with_value, *args, **kwargs)
        except Exception as exc:
            if keeps_internals(exc):
                raise
            raise without_internals(exc)
    return entry


class JitGrad:
    """A compiled function with its gradients; see the module docstring."""

    # `__call__` is a per-instance slot, not a method: it holds a dispatcher until the first
    # signature is compiled, then that signature's native wrapper, which `f(...)` reaches
    # through the slot with no Python frame in between (about 40 ns a call).
    __slots__ = ("__call__", "__dict__", "__weakref__")

    def __init__(self, fn: Callable, *, argnums=0, fastmath: bool = False,
                 boundscheck: bool = True, cache: bool | None = None,
                 max_tape_bytes=None) -> None:
        if isinstance(fn, JitGrad):  # recompiled with these options
            fn = fn.fn
        if not inspect.isfunction(fn):
            rule = type(fn).__name__ == "CustomVJP"   # pyad.custom_vjp: its rule is for calls
            raise TypeError(f"pyad.jit_grad expects a Python function, got {type(fn).__name__}"
                            + (": compile a function that calls it, e.g. pyad.jit_grad(lambda "
                               "x, y: f(x, y)) or pyad.grad(lambda x, y: f(x, y))"
                               if rule else ""))
        functools.update_wrapper(self, fn)
        argnums = check_argnums(argnums)
        self.fn = fn
        self.argnums = argnums
        self.fastmath = fastmath
        self.boundscheck = boundscheck
        self.max_tape_bytes, self._budget = max_tape_bytes, None
        if max_tape_bytes is not None:
            from .. import ad  # import-time: a budget is checked when it is given
            self._budget = ad.budget(max_tape_bytes)
        self.cache = cache
        #: compiled code goes to (and comes from) the on-disk cache (api/cache.py)
        self._caching = disk_cache.default_enabled(fn) if cache is None else bool(cache)
        self._params = binding.Params(fn, fn.__name__)
        self._flat_treedef = (pytree.LEAF,) * len(self._params.names)
        self._specs: dict[Any, Specialization] = {}
        self._first: Specialization | None = None  # the signature with the native fast path
        #: (argnums, with value) -> the native gradient wrapper of the fast-path signature
        self._native: dict[tuple, Callable] = {}
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
    def bind(self, args: tuple, kwargs: dict | None = None) -> tuple[Specialization, list]:
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
                    spec = self._specs[key] = guard(lambda: Specialization(self, sig, treedef))
        return spec, leaves

    def _fast(self, spec: Specialization) -> bool:
        """Whether `spec` (compiled) gets the native fast path: the first signature compiled
        whose wrappers take the Python arguments as they are."""
        if self._first is None and spec.direct:
            with self._lock:
                if self._first is None:
                    self._first = spec
        return spec is self._first

    def specialization(self, args: tuple, kwargs: dict | None = None) -> Specialization:
        spec = self.bind(args, kwargs)[0]
        guard(lambda: spec.func)  # the IR, for introspection (tests, ir(), grad_ir())
        return spec

    def _convert(self, spec: Specialization, leaves) -> tuple:
        return tuple(api_arrays.convert(t, a) for t, a in zip(spec.sig, leaves))

    def _dispatch_call(self, *args, **kwargs):
        spec, leaves = self.bind(args, kwargs)
        fn = guard(spec.primal)
        if self._fast(spec):
            self.__call__ = fn  # the first direct signature gets the native fast path
        return spec.result(call_converted(fn, self._convert(spec, leaves)))

    def _grad_entry(self, argnums, with_value: bool, *args, **kwargs):
        """The native gradient wrapper of `argnums` once there is one (it checks the
        arguments and hands others to `_dispatch_grad`), else `_dispatch_grad`: the way in
        of a bound method's gradients (methods.py). The transforms of a JitGrad
        (`gradient_entry`) and `f.grad`, `f.value_and_grad` taken before their first call
        (`_gradient_method`) do the same in one frame."""
        fn = self._native.get((argnums, with_value))
        if fn is not None:
            return fn(*args, **kwargs)
        return self._dispatch_grad(argnums, with_value, *args, **kwargs)

    def _dispatch_grad(self, argnums, with_value: bool, *args, **kwargs):
        spec, leaves = self.bind(args, kwargs)
        unit = guard(lambda: spec.gradient(argnums))
        which = "value_and_grad" if with_value else "grad"
        fn = guard(lambda: unit.entry(which))
        native = spec.native_gradient(argnums)
        if native and self._fast(spec):
            self._native[(argnums, with_value)] = fn
            if argnums is self.argnums:
                self.__dict__[which] = fn  # native fast path for later calls
        out = call_converted(fn, self._convert(spec, leaves))
        if native:
            return out
        value, flat = out if with_value else (None, out)
        g = spec.arrange(argnums, dict(zip(unit.wrt, flat)))
        return (value, g) if with_value else g

    grad = _gradient_method("grad", False, "The gradient at `args` (structure set by "
                                           "`argnums`).")
    value_and_grad = _gradient_method("value_and_grad", True, "`(f(*args), grad(*args))` "
                                      "computed in one native call.")

    @user_facing
    def pullback(self, *args, **kwargs):
        """`(y, back)`: the value and a function mapping a cotangent of `y` to gradients."""
        return self._pullback(self.argnums, *args, **kwargs)

    def _pullback(self, argnums, *args, **kwargs):
        spec, leaves = self.bind(args, kwargs)
        unit = guard(lambda: spec.gradient(argnums))
        fwd, bwd = guard(lambda: (unit.entry("fwd"), unit.entry("bwd")))
        args = self._convert(spec, leaves)
        types = spec.facts.result_types
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
    def tape_bytes(self, *args, **kwargs) -> int:
        """The most bytes of AD tape one gradient call at `args` holds (its peak)."""
        return self.pullback(*args, **kwargs)[1].tape_bytes

    # ---------------------------------------------------------------- introspection
    @user_facing
    def ir(self, *args, **kwargs) -> str:
        """The primal IR for the signature of `args`."""
        return str(self.specialization(args, kwargs).func)

    @user_facing
    def grad_ir(self, *args, **kwargs) -> str:
        """The forward and backward IR (and the fused value-and-gradient IR when the result
        is a single float, followed by its version with strong zeros if it has one) for the
        signature of `args`."""
        unit = guard(lambda: self.specialization(args, kwargs).gradient(self.argnums))
        parts = [str(unit.fwd), str(unit.bwd)] + [str(f) for f in (unit.fused, unit.gir.safe)
                                                  if f is not None]
        return "\n".join(parts)

    @user_facing
    def llvm_ir(self, *args, gradient: bool = False, **kwargs) -> str:
        """The optimized LLVM IR of the primal (or of the gradient kernels), then that of the
        native wrappers its kernels share with every function of their signature, if any
        (docs/processes.md, "Wrappers shared by the functions of one signature")."""
        spec = self.specialization(args, kwargs)
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
             boundscheck: bool = True, cache: bool | None = None,
             max_tape_bytes: int | None = None):
    """Compile `fn` and its gradient. Use as `@jit_grad` or `@jit_grad(argnums=..., ...)`.
    `argnums` selects what `grad`, `value_and_grad` and `pullback` differentiate: an int
    (default 0: the first parameter, its gradient bare, as in JAX), a tuple of ints (a tuple
    of gradients) or "all" (a tuple with one entry per parameter, None where a parameter has
    no float leaves).
    `fastmath` lets LLVM reassociate floating point; `boundscheck=False` drops the index
    checks of array accesses (out-of-bounds access is then undefined behaviour). The compiled
    code is kept on disk (`pyad.cache_dir()`, shared objects keyed by the function's code and
    everything it reads, so an edited function never loads a stale entry) and loaded in later
    processes without compiling: by default for functions defined in files (`cache=None`;
    `PYAD_CACHE=0` turns the default off), always with `cache=True`, never with
    `cache=False`; `pyad.clear_cache()` empties it. `max_tape_bytes`
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
