"""Frontend, dtypes: the element type a dtype expression names (`float`, `np.int64`,
`"float64"`, `x.dtype` of an array), a call's `dtype=` keyword, and `np.finfo` / `np.iinfo`
of a dtype, whose numbers (`eps`, `max`, `tiny`, ...) are known when compiling."""
from __future__ import annotations

import ast

import numpy as np

from ..errors import PyadError, PyadTypeError
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, is_array

_DTYPE_NAMES = {"float": F64, "float64": F64, "double": F64, "int": I64, "int64": I64,
                "bool": BOOL, "bool_": BOOL}


def dtype_kw(lw, node: ast.Call, default: str) -> str:
    """The element type the `dtype=` keyword of `node` names, `default` without one (any
    other keyword: an error)."""
    for kw in node.keywords:
        if kw.arg != "dtype":
            raise lw.ctx.error(kw.value, f"unsupported keyword argument `{kw.arg}`")
        return dtype_of(lw, kw.value)
    return default


def dtype_of(lw, node: ast.expr) -> str:
    """The element type a dtype expression names (float, np.int64, "float64", x.dtype)."""
    if isinstance(node, ast.Attribute) and node.attr == "dtype":   # dtype=x.dtype
        base = lw.exprs.expr(node.value)
        if isinstance(base, Var) and is_array(base.type):
            return elem_type(base.type)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        name = node.value
    else:
        obj = lw.ctx.resolve_static(node).obj
        name = getattr(obj, "__name__", str(obj))
    if name not in _DTYPE_NAMES:
        raise lw.ctx.error(node, f"unsupported dtype {name}",
                           hint="use float, int or bool (float64, int64, bool_)")
    return _DTYPE_NAMES[name]


def type_info(lw, node: ast.expr):
    """np.finfo(dtype) or np.iinfo(dtype) of a float or int dtype (float, np.float64,
    x.dtype, ...), made when compiling, when `node` is such a call; else None."""
    ctx = lw.ctx
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
            and not ctx.is_local(node.func)):
        return None
    try:
        fn = ctx.resolve_static(node.func).obj
    except PyadError:
        return None
    if fn not in (np.finfo, np.iinfo):
        return None
    elem = dtype_of(lw, node.args[0])
    if elem not in (F64, I64):
        raise ctx.error(node, f"np.{fn.__name__} of a {elem} dtype", cls=PyadTypeError)
    return fn(np.float64 if elem == F64 else np.int64)
