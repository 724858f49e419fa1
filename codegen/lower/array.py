"""Lowerings of the array rows of the op table: allocation, shapes, index checks, element
loads and stores, and views. An array value is the struct `abi.array_struct(ndim)`
{data, shape[ndim], strides[ndim]} (strides in elements) held in registers; a view is a new
struct over the same data. Same calling convention as lower/custom.py: (emitter, stmt, result
type, *llvm args) -> result value."""
from __future__ import annotations

import hashlib

from llvmlite import ir

from pyad.ir.nodes import BOOL, elem_type, ndim_of

from .. import abi


def _i(x: int) -> ir.Constant:
    return ir.Constant(abi.I64, x)


def _data(b, a):
    return b.extract_value(a, 0)


def _shape(b, a, k):
    return b.extract_value(a, [1, k])


def _stride(b, a, k):
    return b.extract_value(a, [2, k])


def make_array(b, t: str, data, shape: list, strides: list):
    v = ir.Constant(abi.array_struct(len(shape)), ir.Undefined)
    v = b.insert_value(v, data, 0)
    for k, (n, s) in enumerate(zip(shape, strides)):
        v = b.insert_value(v, n, [1, k])
        v = b.insert_value(v, s, [2, k])
    return v


def c_contiguous(b, a):
    """The array `a` with the strides of a C-contiguous array of its shape: what a kernel
    called from Python or C makes of an array parameter. Its callers pass C-contiguous
    arrays only (the native wrappers, api/arrays.is_native, api/batch.py, the C library's
    ABI), so LLVM sees the last axis's stride 1 and the others as products of the shape:
    contiguous vector loads instead of gathers through run-time strides. (The stride of an
    axis of length 1 is never used; an empty array is never read.)"""
    stride = _i(1)
    for k in reversed(range(a.type.elements[1].count)):
        a = b.insert_value(a, stride, [2, k])
        if k:
            stride = b.mul(stride, _shape(b, a, k), flags=("nsw", "nuw"))
    return a


def _offset(b, data, t: str, delta):
    return b.gep(data, [delta], inbounds=True, source_etype=abi.elem_llvm(t))


def element_ptr(e, s, arr_t: str, a, idx):
    b = e.b
    off = None
    for k, i in enumerate(idx):
        term = b.mul(i, _stride(b, a, k))
        off = term if off is None else b.add(off, term)
    return _offset(b, _data(b, a), arr_t, off)


def alloc(e, s, t, *shape, written: bool = False):
    """A zeroed C-contiguous array from the call's arena (`written`: not zeroed, for a
    kernel that writes every element before anything reads it); ValueError for a negative
    dimension, MemoryError when it cannot be allocated."""
    b = e.b
    n = _i(1)
    for d in shape:
        e.check(b.icmp_signed("<", d, _i(0)), abi.ERR_VALUE,
                "negative dimensions are not allowed", s)
        n = b.mul(n, d)
    itemsize = abi.ITEMSIZE[elem_type(t)]
    # product of dims computed in i64 may wrap: refuse sizes whose dims are huge (> 2**50
    # elements total is far beyond memory anyway)
    logs = [b.uitofp(d, abi.F64) for d in shape]
    total = logs[0]
    for x in logs[1:]:
        total = b.fmul(total, x)
    e.check(b.fcmp_ordered(">", total, ir.Constant(abi.F64, 2.0 ** 50)), abi.ERR_MEMORY,
            "array is too large", s)
    fn = e.extern("pyad_alloc", abi.PTR, [abi.PTR, abi.I64, abi.I32])
    if "noalias" not in fn.return_value.attributes:
        fn.return_value.attributes.add("noalias")
    kind = abi.ALLOC_WRITTEN if written else \
        abi.ALLOC_SHADOW if s.attrs == ("shadow",) else abi.ALLOC_ZEROED
    data = b.call(fn, [e.ctx, b.mul(n, _i(itemsize)), ir.Constant(abi.I32, kind)])
    e.check(b.icmp_unsigned("==", data, ir.Constant(abi.PTR, None)), abi.ERR_MEMORY,
            "out of memory allocating an array", s)
    strides = [_i(1)] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = b.mul(strides[k + 1], shape[k + 1])
    return make_array(b, t, data, list(shape), strides)


def constarray(e, s, t):
    """A descriptor over a private constant global holding the elements (one global per
    distinct constant in a module, named by a digest of its type and elements)."""
    nd = s.attrs[0]
    shape, values = s.attrs[1:1 + nd], s.attrs[1 + nd:]
    name = "pyad.const." + hashlib.sha256(repr((t, s.attrs)).encode()).hexdigest()[:20]
    g = e.module.globals.get(name)
    if g is None:
        elem = abi.elem_llvm(t)
        arr_t = ir.ArrayType(elem, len(values))
        g = ir.GlobalVariable(e.module, arr_t, name)
        g.global_constant = True
        g.linkage = "private"
        g.initializer = ir.Constant(arr_t, [ir.Constant(elem, v if elem == abi.F64 else int(v))
                                            for v in values])
    strides = [1] * nd
    for k in range(nd - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return make_array(e.b, t, g, [_i(n) for n in shape], [_i(st) for st in strides])


def dim(e, s, t, a):
    return _shape(e.b, a, s.attrs[0])


def normidx(e, s, t, i, n):
    b = e.b
    j = b.select(b.icmp_signed("<", i, _i(0)), b.add(i, n), i)
    if e.boundscheck:
        with b.if_then(b.icmp_unsigned(">=", j, n), likely=False):
            line = s.loc.line if s.loc else 0
            fn = e.extern("pyad_index_error", abi.I32,
                          [abi.PTR, abi.I32, abi.I64, abi.I64, abi.I64, abi.PTR])
            b.ret(b.call(fn, [e.ctx, ir.Constant(abi.I32, line), i, _i(s.attrs[0]), n,
                              e.cstring(e.where(s.loc))]))
    return j


def wrapidx(e, s, t, i, n):
    """normidx without the bounds check (the forward sweep checked the same values); the
    index itself when it is known to be >= 0 (attrs (axis, True): pyad/ir/split_sums.py)."""
    b = e.b
    if s.attrs[1:] == (True,):
        return i
    return b.select(b.icmp_signed("<", i, _i(0)), b.add(i, n), i)


def load(e, s, t, a, *idx):
    b = e.b
    v = b.load(element_ptr(e, s, s.args[0].type, a, idx), typ=abi.elem_llvm(s.args[0].type))
    return b.icmp_unsigned("!=", v, ir.Constant(abi.I8, 0)) if t == BOOL else v


def store(e, s, t, a, *idx_v):
    b = e.b
    v = idx_v[-1]
    if s.args[-1].type == BOOL:
        v = b.zext(v, abi.I8)
    b.store(v, element_ptr(e, s, s.args[0].type, a, idx_v[:-1]))


def accum(e, s, t, a, *idx_v):
    b = e.b
    p = element_ptr(e, s, s.args[0].type, a, idx_v[:-1])
    b.store(b.fadd(b.load(p, typ=abi.F64), idx_v[-1], flags=e.flags), p)


def row(e, s, t, a, i):
    b = e.b
    nd = ndim_of(s.args[0].type)
    data = _offset(b, _data(b, a), t, b.mul(i, _stride(b, a, 0)))
    return make_array(b, t, data, [_shape(b, a, k) for k in range(1, nd)],
                 [_stride(b, a, k) for k in range(1, nd)])


def col(e, s, t, a, j):
    b = e.b
    data = _offset(b, _data(b, a), t, b.mul(j, _stride(b, a, 1)))
    return make_array(b, t, data, [_shape(b, a, 0)], [_stride(b, a, 0)])


def slice_(e, s, t, a, lo, hi):
    b = e.b
    nd = ndim_of(t)
    data = _offset(b, _data(b, a), t, b.mul(lo, _stride(b, a, 0)))
    return make_array(b, t, data, [b.sub(hi, lo)] + [_shape(b, a, k) for k in range(1, nd)],
                 [_stride(b, a, k) for k in range(nd)])


def transpose(e, s, t, a):
    b = e.b
    nd = ndim_of(t)
    return make_array(b, t, _data(b, a), [_shape(b, a, k) for k in reversed(range(nd))],
                 [_stride(b, a, k) for k in reversed(range(nd))])


def view(e, s, t, a, *ops):
    """a[items] (the `view` row): offsets for integers and slice starts, a (count, step *
    stride) axis per slice, a (1, 0) axis per new axis, the remaining axes as they are."""
    b = e.b
    it = iter(ops)
    off, shape, strides, k = None, [], [], 0
    for c in s.attrs[0]:
        if c == "n":
            shape.append(_i(1))
            strides.append(_i(0))
            continue
        st = _stride(b, a, k)
        term = b.mul(next(it), st)
        if c == "s":
            shape.append(next(it))
            strides.append(b.mul(next(it), st))
        off = term if off is None else b.add(off, term)
        k += 1
    for j in range(k, ndim_of(s.args[0].type)):
        shape.append(_shape(b, a, j))
        strides.append(_stride(b, a, j))
    data = _data(b, a) if off is None else _offset(b, _data(b, a), t, off)
    return make_array(b, t, data, shape, strides)


ARRAY_LOWERINGS = {
    "alloc": alloc, "constarray": constarray, "dim": dim, "normidx": normidx, "wrapidx": wrapidx,
    "load": load, "store": store, "accum": accum, "row": row, "col": col, "slice": slice_, "transpose": transpose,
    "view": view,
}
