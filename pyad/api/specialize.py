"""One signature of a compiled function (the leaf types of the bound arguments and their
structure): its IR, its primal unit and its gradient units, each made on first use.

A unit (the primal; the fused value-and-gradient kernel of an argnums; the forward/backward
pair of its pullback) is loaded from the on-disk cache (cache.py) when it is there, without
parsing, AD or LLVM; otherwise the compiler runs (pipeline.py, imported then) and the unit is
compiled into a cache entry, or into the JIT when the function is not cached. What the API
needs to know of a signature without its IR (:class:`Facts`: the result structure, whether
arrays are involved, the result types) comes from the IR, or from the entry that was hit.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Callable, NamedTuple

from .. import _runtime, pytree
from ..timings import Timings, phase
from . import cache, families, methods
from .boundary import weak_call
from .gradients import GradientUnit
from ..ir.types import F64, is_array

_FLOAT_TYPES = (F64, "f64[1d]", "f64[2d]", "f64[3d]")


def _pipeline(timings: Timings | None = None):
    """pyad's passes (frontend, AD, IR), loaded by the first compile (a cache hit never);
    `timings` gets the import's time ("code generator import")."""
    with phase(timings, "code generator import"):
        from .. import pipeline  # import-time: ~50 ms; `import pyad` and cache hits skip it
    return pipeline


def _codegen():
    """The code generator, loaded by the first compile (a cache hit never)."""
    from ..codegen import build  # import-time: llvmlite, ~100 ms; cache hits skip it
    return build


def has_record(tree) -> bool:
    """Whether a compiler-side tree (a result shape, a gradient structure) holds a Record."""
    if isinstance(tree, pytree.Record):
        return True
    return isinstance(tree, tuple) and any(map(has_record, tree))


class Facts(NamedTuple):
    """What the API knows of a signature without its IR."""
    shape: Any                     # the result structure (pytree over result indices)
    arrays: bool                   # arrays in or out
    result_types: tuple[str, ...]  # the kernel's result types


class Specialization:
    """Everything compiled for one signature: the leaf types `sig` of the bound arguments and
    their structure `treedef` (a tuple with one subtree per parameter)."""

    def __init__(self, owner, sig: tuple[str, ...], treedef=None) -> None:
        n = len(owner._params.names)
        self.owner, self.sig = owner, sig
        self.treedef = (pytree.LEAF,) * n if treedef is None else treedef
        #: the structure of gradients: None where an argument holds a string
        self._grad_treedef = tuple(_no_strings(t) for t in self.treedef)
        #: where this signature's compile time went (pyad/timings.py, `JitGrad.timings()`)
        self.timings = Timings()
        self.what = f"{owner.__name__}({', '.join(sig)})"
        self.name = owner.fn.__name__
        # the leaves of parameter p are sig[spans[p][0]:spans[p][1]]
        counts = [len(pytree.leaves(t)) for t in self.treedef]
        starts = [sum(counts[:p]) for p in range(n)]
        self.spans = [(a, a + c) for a, c in zip(starts, counts)]
        self.lock = threading.RLock()
        self._func = None
        self._facts: Facts | None = None
        #: the key of this signature in the on-disk cache (None: not cached)
        self.key = self._key()
        self.primal_unit = None
        self.grads: dict[Any, Any] = {}
        self._native: dict[Any, bool] = {}  # argnums -> native_gradient

    def _key(self) -> str | None:
        owner = self.owner
        if not owner._caching or not cache.usable():
            return None
        return cache.key(owner.fn, owner.__name__, owner.__doc__, self.sig, self.treedef,
                         owner.fastmath, owner.boundscheck, owner.max_tape_bytes,
                         sys.getrecursionlimit())

    # ------------------------------------------------------------------ IR and facts
    @property
    def func(self):
        """The primal IR (made on first use: a cache hit does not need it)."""
        with self.lock:
            if self._func is None:
                with self.timings.step(f"{self.what} primal IR"):
                    func, shape = _pipeline(self.timings).primal_ir(self.owner.fn, self.sig, self.treedef,
                                                        self.timings)
                if self.key is not None and self._key() != self.key:
                    self.key = None  # what the names reach changed since: store nothing
                self._facts = Facts(shape, any(is_array(v.type) for v in func.params + func.results),
                                    tuple(r.type for r in func.results))
                self._func = func
            return self._func

    @property
    def facts(self) -> Facts:
        if self._facts is None:
            self.func  # noqa: B018 -- lowering sets the facts
        return self._facts

    def learn(self, facts: Facts) -> None:
        """Facts read from a cache entry (the IR would give the same)."""
        with self.lock:
            if self._facts is None:
                self._facts = facts

    @property
    def shape(self):
        return self.facts.shape

    @property
    def arrays(self) -> bool:
        return self.facts.arrays

    @property
    def native_result(self) -> bool:
        """The native wrappers build the result themselves (numbers, arrays, tuples)."""
        return not has_record(self.shape)

    @property
    def direct(self) -> bool:
        """The Python arguments are the kernel's, in order: the native wrapper may be called
        by the user directly."""
        return self.owner._params.plain and self.treedef == (pytree.LEAF,) * len(self.treedef) \
            and self.native_result

    # ------------------------------------------------------------------ units
    def unit_key(self, which: str, argnums) -> str | None:
        return None if self.key is None else cache.key(self.key, which, argnums)

    def _unit_name(self, which: str) -> str:
        return self.name if which == "primal" else f"{self.name}.{which}"

    def cached(self, which: str, argnums, wrappers: Callable[[], list]):
        """(unit `which` -- 'primal', 'vg' or 'pullback' -- loaded from the on-disk cache,
        what the API stored beside it), or None. `wrappers()` gives its WrapperSpecs; it is
        called once the facts are known."""
        k = self.unit_key(which, argnums)
        if k is None:
            return None
        name = self._unit_name(which)
        with phase(self.timings, "cache"):
            entry = cache.lookup(k, name)
        if entry is None:
            return None
        facts, more = entry.meta
        self.learn(Facts(*facts))
        from ..codegen.unit import load_unit  # import-time: no LLVM (ctypes)
        _runtime.dll()  # opened RTLD_GLOBAL: the shared object finds the runtime there
        try:
            with phase(self.timings, "linking"):
                return load_unit(str(entry.path), name, wrappers(), entry.kernels,
                                 entry.exports, entry.llvm_ir,
                                 families.families().bound(families.STORE),
                                 self.owner.__name__), more
        except OSError:
            cache.reject(entry)
            return None

    def unit(self, which: str, argnums, wrappers: Callable[[], list],
             kernels: Callable[[], list], extra: Callable[[], dict], look: bool = True):
        """(unit `which`, what the API stored beside it): from the cache, else compiled --
        into a cache entry when the signature has a key. `kernels()` gives its KernelSpecs
        (this needs the IR), `extra()` what the API stores beside the facts (e.g. whether
        the pullback zeroes shadows). `look=False`: the cache was looked up already."""
        hit = self.cached(which, argnums, wrappers) if look else None
        if hit is not None:
            return hit
        specs, more = kernels(), extra()  # the IR (and the facts); a key may be dropped here
        with phase(self.timings, "code generator import"):
            build = _codegen()
        name, k = self._unit_name(which), self.unit_key(which, argnums)
        slot = cache.slot(k, name, (tuple(self.facts), more)) if k is not None else None
        options = dict(fastmath=self.owner.fastmath, boundscheck=self.owner.boundscheck,
                       pyname=self.owner.__name__, max_depth=_pipeline().max_call_depth(),
                       timings=self.timings)
        wrappers_of = families.families().bound(families.STORE if slot is not None else None)
        try:
            return build.compile_unit(name, specs, wrappers(), shared=slot, families=wrappers_of,
                                      **options), more
        except OSError as e:  # the C compiler could not link (or dlopen) the shared object
            if slot is None:
                raise
            cache.link_failed(e)
            return build.compile_unit(name, specs, wrappers(), families=families.families().bound(),
                                      **options), more
        finally:
            if slot is not None:
                slot.discard()  # a failed or unused slot leaves no temporary file

    def primal(self) -> Callable:
        with self.lock:
            if self.primal_unit is None:
                with self.timings.step(f"{self.what} primal"):
                    self.primal_unit, _ = self.unit("primal", None, self._primal_wrappers,
                                                    self._primal_kernels, dict)
            return self.primal_unit.callables["primal"]

    def _primal_wrappers(self) -> list:
        from ..codegen.unit import WrapperSpec  # import-time: no LLVM
        owner = self.owner
        result = self.shape if self.native_result else tuple(range(len(self.facts.result_types)))
        return [WrapperSpec("primal", "primal", result, owner.__doc__ or "",
                            weak_call(owner, "_dispatch_call"), pickle_as=(owner, "__call__"))]

    def _primal_kernels(self) -> list:
        from ..codegen.unit import KernelSpec  # import-time: no LLVM
        return [KernelSpec("primal", _pipeline(self.timings).native(self.func, self.timings))]

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
            return pytree.unflatten(self._grad_treedef[p],
                                    (by_leaf.get(j) for j in range(lo, hi)))
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
            native = self._native[key] = not has_record(self.arrange_tree(argnums, {}))
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
            if key not in self.grads:
                self.grads[key] = GradientUnit(self, argnums, self.wrt(argnums))
            return self.grads[key]


def _no_strings(struct: Any) -> Any:
    """A structure with None where it holds a string (a compile-time argument: no gradient,
    as for an int leaf)."""
    if isinstance(struct, pytree.Record) and struct.kind == "str":
        return pytree.NONE
    if not pytree.is_node(struct):
        return struct
    return pytree.rebuild(struct, [_no_strings(c) for c in pytree.children(struct)])
