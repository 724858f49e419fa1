"""NumPy arrays in the native CPython wrappers (pywrap.py): argument checks, shadow arrays and
array results, emitted in LLVM IR and run with the GIL held.

- An argument is read in place when ``Py_TYPE(o)`` is ``numpy.ndarray`` exactly, its ``nd`` is
  the signature's, its dtype's ``type_num`` is one of ``api_arrays.NATIVE_NUMS`` in native
  byte order and it is C-contiguous (the kernels index their array parameters with the
  strides of a C-contiguous array: lower/array.c_contiguous): ``api_arrays.is_native``, the
  same test in Python. The fields are read at the byte offsets of ``PyArrayObject`` and
  ``PyArray_Descr`` checked once at import (:data:`NUMPY_LAYOUT`) into the kernel's descriptor
  ``{data, shape[nd], strides[nd]}`` (strides in elements). Any other argument goes to the
  wrapper's fallback (the dispatcher, which converts it or raises the TypeError).
- A shadow (the gradient accumulator of an array argument) is ``numpy.zeros(shape, float64)``.
- An array result is ``numpy.empty(shape, dtype)`` filled from the kernel's descriptor
  (memcpy when the data is C-contiguous, else strided loops): a new array the caller owns.

The Python objects this needs (``numpy.ndarray``, ``numpy.empty``, ``numpy.zeros``, the three
dtypes) are read from the module global ``__pyad_numpy``, which :func:`bind` fills after the
module is linked: the object code holds no process addresses, so it can be cached on disk.
While the global is null every array argument takes the fallback.
"""
from __future__ import annotations

from llvmlite import ir

from pyad.api.arrays import ITEMSIZE, NATIVE_NUMS
from pyad.ir.nodes import elem_type, ndim_of

from .. import abi
from .callables import ENV_SLOTS, ENV_SYMBOL, NON_NATIVE, NUMPY_LAYOUT

PTR, I8, I32, I64 = abi.PTR, abi.I8, abi.I32, abi.I64

_ENV_T = ir.ArrayType(PTR, len(ENV_SLOTS))


# ---------------------------------------------------------------------------------------------
# Binding the Python objects after linking
# ---------------------------------------------------------------------------------------------

def env_global(module: ir.Module) -> ir.GlobalVariable:
    """The module's ``__pyad_numpy`` slots (created on first use and exported)."""
    gv = module.globals.get(ENV_SYMBOL)
    if gv is None:
        gv = ir.GlobalVariable(module, _ENV_T, ENV_SYMBOL)
        gv.initializer = ir.Constant(_ENV_T, None)  # defined, external: exported
    return gv


# ---------------------------------------------------------------------------------------------
# IR
# ---------------------------------------------------------------------------------------------

def _at(b: ir.IRBuilder, p, off: int, typ):
    return b.load(b.gep(p, [ir.Constant(I64, off)], inbounds=True, source_etype=I8), typ=typ)


def _env(e, slot: str):
    gv = env_global(e.m)
    k = ENV_SLOTS.index(slot)
    return e.b.load(e.b.gep(gv, [ir.Constant(I32, 0), ir.Constant(I32, k)], inbounds=True,
                            source_etype=_ENV_T), typ=PTR)


def store_descriptor(b: ir.IRBuilder, slot, t: str, data, shape: list, strides: list) -> None:
    """Store the kernel's array value {data, shape, strides} into the stack slot `slot`."""
    v = ir.Constant(abi.array_struct(ndim_of(t)), ir.Undefined)
    v = b.insert_value(v, data, 0)
    for k, (n, s) in enumerate(zip(shape, strides)):
        v = b.insert_value(b.insert_value(v, n, [1, k]), s, [2, k])
    b.store(v, slot)


def load_shape(b: ir.IRBuilder, slot, t: str) -> list:
    v = b.load(slot, typ=abi.array_struct(ndim_of(t)))
    return [b.extract_value(v, [1, k]) for k in range(ndim_of(t))]


def _fields(b: ir.IRBuilder, o, nd: int, itemsize: int):
    """data, shape, strides in elements and `not C-contiguous` of the exact ndarray `o` with
    `nd` dimensions, by NumPy's rule (its C_CONTIGUOUS flag): empty, or each axis longer
    than 1 has the stride of the product of the later axes' lengths times the item size."""
    f = NUMPY_LAYOUT["array"]
    data = _at(b, o, f["data"], PTR)
    dims, strides = _at(b, o, f["dims"], PTR), _at(b, o, f["strides"], PTR)
    shape = [_at(b, dims, 8 * k, I64) for k in range(nd)]
    raw = [_at(b, strides, 8 * k, I64) for k in range(nd)]   # in bytes
    shift = itemsize.bit_length() - 1
    steps = [b.ashr(s, ir.Constant(I64, shift)) if shift else s for s in raw]
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    ok, empty, expect = ir.Constant(abi.I1, 1), ir.Constant(abi.I1, 0), ir.Constant(I64, itemsize)
    for k in reversed(range(nd)):
        s = raw[k]
        ok = b.and_(ok, b.or_(b.icmp_signed("<=", shape[k], one), b.icmp_signed("==", s, expect)))
        empty = b.or_(empty, b.icmp_signed("==", shape[k], zero))
        expect = b.mul(expect, shape[k])
    return data, shape, steps, b.not_(b.or_(ok, empty))


def emit_arg(e, o, t: str, slot, bad: ir.Block, nxt: ir.Block, i: int) -> None:
    """Store the descriptor of argument `o` (array type `t`) into `slot` and branch to `nxt`,
    or branch to `bad` when `o` is not an array the kernel reads in place."""
    b = e.b
    nd, elem = ndim_of(t), elem_type(t)
    is_nd = e.block(f"arg{i}_ndarray")
    b.cbranch(b.icmp_unsigned("==", e.type_of(o), _env(e, "ndarray")), is_nd, bad)
    b.position_at_end(is_nd)
    f, d = NUMPY_LAYOUT["array"], NUMPY_LAYOUT["descr"]
    ok = b.icmp_signed("==", _at(b, o, f["nd"], I32), ir.Constant(I32, nd))
    descr = _at(b, o, f["descr"], PTR)
    num = _at(b, descr, d["type_num"], I32)
    num_ok = ir.Constant(abi.I1, 0)
    for n in sorted(NATIVE_NUMS[elem]):
        num_ok = b.or_(num_ok, b.icmp_signed("==", num, ir.Constant(I32, n)))
    order = _at(b, descr, d["byteorder"], I8)
    ok = b.and_(b.and_(ok, num_ok), b.icmp_unsigned("!=", order, ir.Constant(I8, NON_NATIVE[0])))
    read = e.block(f"arg{i}_fields")
    b.cbranch(ok, read, bad)
    b.position_at_end(read)  # nd is known now: dims[k] and strides[k] exist
    data, shape, steps, strided = _fields(b, o, nd, ITEMSIZE[elem])
    store = e.block(f"arg{i}_store")
    b.cbranch(strided, bad, store)
    b.position_at_end(store)
    store_descriptor(b, slot, t, data, shape, steps)
    b.branch(nxt)


def _shape_object(e, shape: list, fail: ir.Block):
    """A new int (1-D) or tuple of ints for numpy's `shape` argument; `fail` on NULL."""
    b = e.b

    def long(v):
        return e.call("PyLong_FromLongLong", PTR, [I64], [v])

    if len(shape) == 1:
        obj = long(shape[0])
        e.branch_if_null(obj, fail)
        return obj
    tup = e.call("PyTuple_New", PTR, [e.ssize], [ir.Constant(e.ssize, len(shape))])
    e.branch_if_null(tup, fail)
    bad_item = e.block("shape_item_null")
    for k, n in enumerate(shape):
        item = long(n)
        e.branch_if_null(item, bad_item)
        e.set_item(tup, k, item)
    cont = e.block("shape_ok")
    b.branch(cont)
    b.position_at_end(bad_item)
    e.call("Py_DecRef", ir.VoidType(), [PTR], [tup])
    b.branch(fail)
    b.position_at_end(cont)
    return tup


def _numpy_call(e, func_slot: str, shape: list, dtype_slot: str | None, fail: ir.Block):
    """``numpy.<func>(shape[, dtype])`` as a new reference; `fail` on error (exception set)."""
    b = e.b
    shp = _shape_object(e, shape, fail)
    argv_t = ir.ArrayType(PTR, 2)
    argv = e.entry_alloca(argv_t, "np_argv")
    dtype = ir.Constant(PTR, None) if dtype_slot is None else _env(e, dtype_slot)
    b.store(b.insert_value(b.insert_value(ir.Constant(argv_t, ir.Undefined), shp, 0), dtype, 1), argv)
    n = 1 if dtype_slot is None else 2
    obj = e.call("PyObject_Vectorcall", PTR, [PTR, PTR, e.ssize, PTR],
                 [_env(e, func_slot), argv, ir.Constant(e.ssize, n), ir.Constant(PTR, None)])
    e.call("Py_DecRef", ir.VoidType(), [PTR], [shp])
    e.branch_if_null(obj, fail)
    return obj


def emit_shadow(e, t: str, shape: list, slot, fail: ir.Block):
    """``numpy.zeros(shape, float64)`` (new reference), its descriptor stored into `slot`."""
    # the dtype is passed explicitly: numpy 2.4's np.zeros(shape) leaks a reference to it
    obj = _numpy_call(e, "zeros", shape, "f64", fail)
    data, _shape, steps, _strided = _fields(e.b, obj, ndim_of(t), 8)
    store_descriptor(e.b, slot, t, data, shape, steps)
    return obj


def emit_result(e, t: str, slot, fail: ir.Block):
    """A new C-contiguous ndarray with the contents of the kernel's array result in `slot`."""
    obj = _numpy_call(e, "empty", load_shape(e.b, slot, t), elem_type(t), fail)
    dst = _at(e.b, obj, NUMPY_LAYOUT["array"]["data"], PTR)
    e.b.call(_copy_function(e.m, t), [dst, slot])
    return obj


def _for_range(b: ir.IRBuilder, fn: ir.Function, n, body) -> None:
    """for (i = 0; i < n; i++) body(i), leaving the builder after the loop."""
    pre = b.block
    head, loop, end = (fn.append_basic_block(s) for s in ("for_head", "for_body", "for_end"))
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(ir.Constant(I64, 0), pre)
    b.cbranch(b.icmp_signed("<", i, n), loop, end)
    b.position_at_end(loop)
    body(i)
    i.add_incoming(b.add(i, ir.Constant(I64, 1)), b.block)
    b.branch(head)
    b.position_at_end(end)


def _copy_function(module: ir.Module, t: str) -> ir.Function:
    """``void copy(ptr dst, ptr desc)``: the elements of the array `desc` points to, in C
    order, into the contiguous buffer `dst` (one per element type and ndim, internal)."""
    elem, nd = elem_type(t), ndim_of(t)
    name = f"__pyad_copy_{elem}{nd}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR]), name)
    fn.linkage = "internal"
    dst, src = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    out = b.alloca(I64, name="out_index")  # in the entry block: mem2reg makes it a register
    desc = b.load(src, typ=abi.array_struct(nd))
    data = b.extract_value(desc, 0)
    shape = [b.extract_value(desc, [1, k]) for k in range(nd)]
    strides = [b.extract_value(desc, [2, k]) for k in range(nd)]
    size = ITEMSIZE[elem]
    unit = ir.IntType(8 * size)
    total, expect, contiguous = ir.Constant(I64, 1), ir.Constant(I64, 1), ir.Constant(abi.I1, 1)
    for k in reversed(range(nd)):  # NumPy's rule: strides of length-1 axes do not matter
        fits = b.or_(b.icmp_signed("<=", shape[k], ir.Constant(I64, 1)),
                     b.icmp_signed("==", strides[k], expect))
        contiguous = b.and_(contiguous, fits)
        expect = b.mul(expect, shape[k])
    total = expect
    done, work, flat, strided = (fn.append_basic_block(s) for s in ("done", "work", "flat", "strided"))
    b.cbranch(b.icmp_signed("<=", total, ir.Constant(I64, 0)), done, work)
    b.position_at_end(work)
    b.cbranch(contiguous, flat, strided)
    b.position_at_end(flat)
    memcpy = module.declare_intrinsic("llvm.memcpy", [PTR, PTR, I64])
    b.call(memcpy, [dst, data, b.mul(total, ir.Constant(I64, size)), ir.Constant(abi.I1, 0)])
    b.branch(done)
    b.position_at_end(strided)
    b.store(ir.Constant(I64, 0), out)

    def nest(k: int, offset) -> None:
        if k == nd:
            v = b.load(b.gep(data, [offset], inbounds=True, source_etype=unit), typ=unit)
            j = b.load(out, typ=I64)
            b.store(v, b.gep(dst, [j], inbounds=True, source_etype=unit))
            b.store(b.add(j, ir.Constant(I64, 1)), out)
            return
        _for_range(b, fn, shape[k], lambda i: nest(k + 1, b.add(offset, b.mul(i, strides[k]))))

    nest(0, ir.Constant(I64, 0))
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return fn
