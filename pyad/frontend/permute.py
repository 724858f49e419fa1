"""Frontend, the order of an array's dimensions: np.transpose(a, axes) (and a.transpose),
np.swapaxes, np.moveaxis, and the reordering np.stack(xs, axis=k) of a list of run-time
length uses. Reversing them is a view (`transpose`); another order of a 3-D array is an
expression of its elements (a new array when materialized)."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import Var, ndim_of
from .context import Lazy


def permute(lw, name: str, node: ast.Call, args: list, kw: dict):
    """np.transpose(a, axes) (and a.transpose(*axes)), np.swapaxes(a, i, j),
    np.moveaxis(a, src, dst): the dimensions of `a` reordered. Reversing them (`a.T`,
    np.transpose(a)) is a view; another order of a 3-D array is a new array (NumPy's is
    a view: writing into pyad's result does not reach `a`)."""
    ops = lw.arrayops
    extra = set(kw) - ({"axes"} if name == "transpose" else set())
    if extra:
        raise lw.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
    a = lw.arrays.array(ops.materialize(args[0]), node)
    nd = ndim_of(a.type)
    given = node.args[len(node.args) - (len(args) - 1):]   # after the array
    consts = [_axis_arg(lw, x) for x in given]
    if name == "transpose":
        if "axes" in kw:
            consts = [ops.constant_arg(kw["axes"], (tuple, list, type(None)),
                                       "axes must be a constant tuple")]
        if len(consts) == 1 and isinstance(consts[0], (tuple, list)):
            consts = list(consts[0])
        if consts in ([], [None]):
            perm = list(range(nd))[::-1]
        else:
            perm = consts
    elif name == "swapaxes":
        if len(consts) != 2:
            raise lw.ctx.error(node, "np.swapaxes takes an array and two axes",
                                 cls=PyadTypeError)
        i, j = (lw.numpyfuncs.axis_of(a, k, node) for k in consts)
        perm = list(range(nd))
        perm[i], perm[j] = perm[j], perm[i]
    else:
        if len(consts) != 2 or not all(isinstance(k, int) for k in consts):
            raise lw.ctx.error(node, "np.moveaxis takes an array and two int axes here",
                                 cls=PyadTypeError)
        src, dst = (lw.numpyfuncs.axis_of(a, k, node) for k in consts)
        perm = [k for k in range(nd) if k != src]
        perm.insert(dst, src)
    if sorted(k % nd if isinstance(k, int) and -nd <= k < nd else -1 for k in perm) \
            != list(range(nd)) or len(perm) != nd:
        raise lw.ctx.error(node, f"axes {tuple(perm)} do not match a {nd}-D array",
                             cls=PyadTypeError)
    return reordered(lw, a, [k % nd for k in perm], f"np.{name}(a, ...)")

def reordered(lw, a: Var, perm: list[int], what: str):
    """`a` with its dimensions in the order `perm` (a view when reversed, else an
    expression of `a`'s elements); `what` names it in errors about writing into it."""
    nd = ndim_of(a.type)
    if perm == list(range(nd)):
        return a
    if perm == list(range(nd))[::-1]:
        return lw.ctx.b.emit("transpose", a)
    ops = lw.arrayops
    lz = ops.lift(a)
    inverse = [perm.index(k) for k in range(nd)]
    return ops.viewing(Lazy(lz.elem, [lz.dims[k] for k in perm],
                       lambda idx: lz.gen([idx[inverse[k]] for k in range(nd)])), a, what)

def _axis_arg(lw, node: ast.expr):
    return lw.arrayops.constant_arg(node, (int, tuple, list, type(None)),
                                         "axes must be constant integers")
