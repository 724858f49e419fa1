"""`pyad.vmap`: a compiled function mapped over a batch axis of its arguments, in one native
call whose elements are split over threads (JAX's name and meaning; docs/batching.md).

    per_sample = pyad.vmap(pyad.grad(loss), in_axes=(None, 0, 0))(params, X, y)
    total = pyad.vmap(pyad.grad(loss), in_axes=(None, 0, 0), reduce="sum")(params, X, y)

`fun` is a plain function or a `jit_grad` object (the primal is mapped), or the gradient
functions `pyad.grad(f, argnums)` / `pyad.value_and_grad(f, argnums)` / `f.grad` /
`f.value_and_grad`, of functions or of bound methods (`self` is passed to every element,
not mapped, and `in_axes` counts the arguments after it). `in_axes` is an int or None for every positional argument, or a tuple
with one entry per positional argument, each an int, None, or a tree of them matching the
argument's containers; keyword arguments are mapped over axis 0 and defaults are not mapped.
Results are stacked along `out_axes` (an int or a tree), or with `reduce="sum"` summed over
the batch in element order (batch.py: each element's gradient in a zeroed row of its own,
added a chunk at a time), the same bits on any number of threads. Threads:
`num_threads`, else `$PYAD_NUM_THREADS`, else the CPUs this process may use.
"""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import numpy as np

from .. import pytree
from ..errors import StrongZeros
from ..ir.types import is_array
from .batch import Batch, default_threads
from .boundary import guard, user_facing
from .jit import JitGrad
from .methods import BoundJitGrad, self_tree, shifted
from .transforms import TRANSFORM_ATTR, _compiled


def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, *, reduce: str | None = None,
         num_threads: int | None = None) -> Callable:
    """`fun` mapped over axis `in_axes` of its arguments (see the module docstring)."""
    jg, mode, argnums = _target(fun)
    _check_axes(in_axes)
    obj = None
    if isinstance(jg, BoundJitGrad):   # a method: `self` is passed first, not mapped
        jg, obj = jg._jg, jg._obj
        argnums = shifted(argnums) if mode != "call" else argnums
    if reduce not in (None, "sum"):
        raise ValueError(f"vmap reduce must be None or 'sum', not {reduce!r}")
    if any(isinstance(a, bool) or not isinstance(a, int)
           for a in pytree.tree_leaves(out_axes)):
        raise TypeError(f"vmap out_axes must be an int or a tree of ints, not {out_axes!r}")
    if num_threads is not None and (not isinstance(num_threads, int) or num_threads < 1):
        raise ValueError(f"vmap num_threads must be a positive int, not {num_threads!r}")

    @functools.wraps(jg.fn)
    @user_facing
    def batched(*args, **kwargs):
        threads = num_threads or default_threads()
        axes = in_axes
        if obj is not None:
            axes = (None,) + (tuple(in_axes) if isinstance(in_axes, (tuple, list))
                              else (in_axes,) * len(args))
            args = (self_tree(obj),) + args
        return _call(jg, mode, argnums, axes, out_axes, reduce, threads, args, kwargs)
    batched.__pyad_vmapped__ = True
    return batched


def _target(fun: Callable) -> tuple[JitGrad, str, Any]:
    """(compiled function, what is mapped: 'call', 'grad' or 'value_and_grad', argnums)."""
    if getattr(fun, "__pyad_vmapped__", False):
        raise TypeError("pyad.vmap of a function pyad.vmap made is not supported: map the "
                        "outer axis with a loop or a comprehension over its slices, or write "
                        "the inner function for a whole row and vmap it once")
    marked = getattr(fun, TRANSFORM_ATTR, None)
    if marked is not None:
        if marked[1] not in ("grad", "value_and_grad"):
            raise TypeError(f"pyad.vmap does not map {marked[1]}: map the function and its "
                            "pyad.grad separately")
        return marked
    if isinstance(fun, (JitGrad, BoundJitGrad)):
        return fun, "call", None
    owner = getattr(fun, "__self__", None)
    if isinstance(owner, (JitGrad, BoundJitGrad)) and fun.__name__ in ("grad",
                                                                      "value_and_grad"):
        return owner, fun.__name__, owner.argnums
    target = owner[2] if isinstance(owner, tuple) and len(owner) > 2 else None
    if target is not None:  # a native entry of a compiled function (codegen.library.CodeOwner)
        obj, attr = target[0](), target[1]
        if isinstance(obj, JitGrad) and attr in ("__call__", "grad", "value_and_grad"):
            return obj, "call" if attr == "__call__" else attr, obj.argnums
    if inspect.isfunction(fun) or inspect.ismethod(fun):
        compiled = _compiled(fun)
        if isinstance(compiled, (JitGrad, BoundJitGrad)):
            return compiled, "call", None
    raise TypeError(f"pyad.vmap maps a Python function, a pyad.jit_grad function, or "
                    f"pyad.grad / pyad.value_and_grad of one, not {fun!r}")


def _check_axes(spec: Any) -> None:
    for a in pytree.tree_leaves(spec):
        if a is not None and (not isinstance(a, int) or isinstance(a, bool)):
            raise TypeError(f"vmap in_axes must hold ints and None, not {a!r}")


def _param_axes(params, nargs: int, kwargs: dict, in_axes: Any) -> list:
    """One in_axes tree per parameter of the function."""
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != nargs:
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple with one entry "
                             f"per positional argument, but got len(in_axes)={len(in_axes)} "
                             f"for {nargs} positional arguments")
        per_arg = list(in_axes)
    else:
        per_arg = [in_axes] * nargs
    npos = len(params.positional)
    out = []
    for i, name in enumerate(params.names):
        if i == params.vararg:
            out.append(tuple(per_arg[npos:]))
        elif name in params.positional and params.positional.index(name) < nargs:
            out.append(per_arg[params.positional.index(name)])
        else:
            out.append(0 if name in kwargs else None)
    return out


def _leaf_axes(value: Any, spec: Any, where: str, out: list) -> None:
    """Append (axis, where) for each leaf of `value` under the in_axes tree `spec`."""
    if spec is None or isinstance(spec, int):
        out += [(spec, where)] * len(pytree.tree_leaves(value))
        return
    node, snode = pytree.as_node(value), pytree.as_node(spec)
    if not _same_node(node, snode):
        raise ValueError(f"vmap in_axes for {where} is {spec!r}, which does not match the "
                         "argument's structure (give an int or None, or a tree of them with "
                         "the argument's containers)")
    names = node.fields if isinstance(node, pytree.Record) and node.fields \
        else range(len(pytree.children(node)))
    for k, v, s in zip(names, pytree.children(node), pytree.children(snode)):
        _leaf_axes(v, s, f"{where}[{k!r}]", out)


def _element_zero(leaves: list, axes: list) -> tuple[list, int]:
    """The leaves of batch element 0 and the batch size (ValueError for mismatches)."""
    n, first, elem = None, None, []
    for leaf, (axis, where) in zip(leaves, axes):
        if axis is None:
            elem.append(leaf)
            continue
        a = leaf if isinstance(leaf, np.ndarray) else np.asarray(leaf)
        if not -a.ndim <= axis < a.ndim:
            raise ValueError(f"vmap was asked to map {where} along axis {axis}, but it has "
                             f"{a.ndim} dimension{'s' if a.ndim != 1 else ''}")
        axis %= a.ndim
        if n is None:
            n, first = a.shape[axis], where
        elif a.shape[axis] != n:
            raise ValueError(f"vmap got inconsistent sizes for the mapped axes: {first} has "
                             f"size {n}, {where} has size {a.shape[axis]}")
        if n == 0:
            raise ValueError(f"vmap over an empty batch: {first} has size 0 along its mapped "
                             "axis")
        elem.append(a[(slice(None),) * axis + (0,)])
    if n is None:
        raise ValueError("vmap needs at least one mapped argument (an int in in_axes)")
    return elem, n


def _call(jg: JitGrad, mode: str, argnums, in_axes, out_axes: int, reduce, threads: int,
          args: tuple, kwargs: dict):
    params = jg._params
    bound = params.bind(args, kwargs)
    axes: list = []
    for name, v, spec in zip(params.names, bound, _param_axes(params, len(args), kwargs,
                                                               in_axes)):
        _leaf_axes(v, spec, f"argument {name!r}", axes)
    leaves, struct = pytree.tree_flatten(bound)
    elem, n = _element_zero(leaves, axes)
    spec, kleaves = jg.bind(*params.call_args(pytree.unflatten(struct, elem)))
    batch = Batch(n, threads)
    # the kernel's parameters: the leaves but strings (compile-time values: binding.describe)
    kept = [(leaf, axis) for leaf, (axis, _) in zip(leaves, axes) if type(leaf) is not str]
    for (leaf, axis), t in zip(kept, spec.sig):
        batch.param(t, leaf, None if axis is None else axis % np.ndim(leaf))
    if mode == "call":
        out = _primal(spec, batch, reduce)
    else:
        out = _gradient(spec, batch, mode, argnums, kleaves, reduce)
    return out if reduce else _placed(out, out_axes, "the result")


def _primal(spec, batch: Batch, reduce):
    guard(spec.primal)
    unit = spec.primal_unit
    gil = unit.kernels["primal"].needs_gil
    outs_kinds = unit.kernels["primal"].outs
    shapes = batch.shapes(unit.entry("primal"), gil, outs_kinds) \
        if any(map(is_array, outs_kinds)) else [None] * len(outs_kinds)
    outs = [batch.result(t, s) for t, s in zip(outs_kinds, shapes)]
    batch.run(unit.entry("primal"), gil)
    outs = [_reduced(o, reduce) for o in outs]
    return pytree.to_python(pytree.gather(spec.shape, outs))


def _gradient(spec, batch: Batch, mode: str, argnums, kleaves: list, reduce):
    gunit = guard(lambda: spec.gradient(argnums))
    guard(lambda: gunit.entry(mode))  # compiled, and checked: a single float result
    mark = batch.mark()
    try:
        value, scalars, shadows = _run_gradient(gunit, "vg", spec, batch, kleaves, reduce)
    except StrongZeros:  # a gradient holds a nan: again, with strong zeros
        batch.rewind(mark)
        value, scalars, shadows = _run_gradient(gunit, "vg_safe", spec, batch, kleaves, reduce)
    by_leaf = {}
    for p in gunit.wrt:
        if p in shadows:
            g = shadows[p]
            by_leaf[p] = shadows[p][0] if reduce else shadows[p]
        else:
            by_leaf[p] = _reduced(scalars[p], reduce)
    g = spec.arrange(argnums, by_leaf)
    return (_reduced(value, reduce), g) if mode == "value_and_grad" else g


def _run_gradient(gunit, which: str, spec, batch: Batch, kleaves: list, reduce):
    """The batch through unit `which` ('vg' or 'vg_safe'): the values, the scalar
    gradients by leaf and the array gradients (shadows) by leaf."""
    unit = gunit._compile(which)
    kernel = unit.kernels["vg"]
    shadows = {p: batch.summed(np.shape(kleaves[p])) if reduce else
               batch.accumulator(np.shape(kleaves[p]))
               for p in gunit.wrt if is_array(spec.sig[p])}
    # the value, then one gradient per leaf in wrt (for arrays: the shadow, not copied)
    value, *grads = [batch.result(t) for t in kernel.outs]
    batch.run(unit.entry("vg"), kernel.needs_gil)
    return value, dict(zip(gunit.wrt, grads)), shadows


def _reduced(a: np.ndarray, reduce) -> Any:
    """`a` (batch axis first), or its sum over the batch, added in element order (as the
    array gradients are, and the C library's sums)."""
    if not reduce:
        return a
    s = np.add.reduce(a, axis=0) if a.ndim > 1 else np.cumsum(a)[-1]
    return s.item() if s.ndim == 0 else s


def _placed(out: Any, out_axes: Any, where: str) -> Any:
    """The result `out` (batch axes first) with each batch axis moved to its place in the
    out_axes tree."""
    if isinstance(out_axes, int):
        def move(a):
            if out_axes == 0 or a is None:
                return a
            if not -a.ndim <= out_axes < a.ndim:
                raise ValueError(f"vmap out_axes {out_axes} is out of range for {where}, "
                                 f"of {a.ndim - 1} dimension{'s' if a.ndim != 2 else ''}")
            return np.moveaxis(a, 0, out_axes)
        return pytree.user_tree_map(move, out)
    node, snode = pytree.as_node(out), pytree.as_node(out_axes)
    if not _same_node(node, snode):
        raise ValueError(f"vmap out_axes {out_axes!r} does not match the structure of {where}")
    parts = [_placed(o, s, f"{where}[{k}]") for k, (o, s) in
             enumerate(zip(pytree.children(node), pytree.children(snode)))]
    return pytree.tree_unflatten(pytree.tree_structure(out),
                                 [x for p in parts for x in pytree.tree_leaves(p)])


def _same_node(node, snode) -> bool:
    """Whether two nodes (pytree.as_node) are containers of one kind and size."""
    return node is not None and snode is not None and type(node) is type(snode) and (
        isinstance(node, tuple) and len(node) == len(snode) or
        isinstance(node, pytree.Record) and node.kind == snode.kind
        and node.fields == snode.fields and len(node.children) == len(snode.children))
