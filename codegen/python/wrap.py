"""METH_FASTCALL | METH_KEYWORDS CPython wrappers, emitted in LLVM IR around generated kernels.

A wrapper has the C signature ``PyObject *w(PyObject *self, PyObject *const *args,
Py_ssize_t nargs, PyObject *kwnames)`` and lives in the same LLVM module as its kernel, together with its
``PyMethodDef`` (``<name>__def``), so its lifetime is the lifetime of the compiled code. It

1. checks that no keyword was passed, the argument count and each argument's exact type
   inline and converts it
   ('f64': exact float, ob_fval read inline; 'i64': exact int via PyLong_AsLongLong;
   'bool': the True/False singletons; 'ptr': exact int via PyLong_AsVoidPtr; an array type:
   a numpy.ndarray the kernel can read in place, see wrap_arrays.py);
2. on any mismatch calls its fallback (a dispatcher, kept in the callable's ``__self__``:
   library.CodeOwner) with the original arguments (keywords included), or raises TypeError
   if there is none;
3. makes the shadow arrays it was asked for (zero float64 arrays shaped like array
   arguments: gradient accumulators), then calls the kernel with a zeroed ``pyad_ctx`` and
   stack slots for the outputs -- with ``release_gil``, between ``PyEval_SaveThread()`` and
   ``PyEval_RestoreThread()``, so other Python threads run meanwhile (only the kernel call:
   no Python object is touched while the GIL is released; a kernel that itself references
   the C API keeps the GIL);
4. maps a non-zero status to the exception named by ``abi.ERROR_KINDS[ctx.err_kind]`` with
   the kernel's message, or builds the result object (float/int/bool/address, a new array
   copied from the kernel's array result, a shadow array, None, nested tuples);
5. releases the call's tape and arena and its references to the shadows.

The kernel ABI is described in :mod:`.abi`. Byte offsets of CPython objects are checked once at
import (pyobj.py, :data:`LAYOUT`); where a check fails the wrapper calls the C API instead.
Whether a kernel keeps the GIL or may release it: kernel_facts.py.
"""
from __future__ import annotations

from typing import Sequence

from llvmlite import ir

from pyad.ir.nodes import ARRAY_TYPES, elem_type, is_array, ndim_of

from .. import abi
from . import wrap_arrays as pywrap_arrays
from .kernel_facts import has_loop, uses_python_api
from ..unit import Shadow
from .callables import (LAYOUT, METH_FASTCALL, METH_KEYWORDS, def_symbol,  # noqa: F401
                        library_of, make_callable)
from .pyobj import LONG, SSIZE, WrapperEmitter, byte_gep, cstr, declare, extern

__all__ = ["emit_wrapper", "emit_wrappers", "has_loop", "uses_python_api", "make_callable", "library_of", "def_symbol", "Shadow",
           "INPUT_KINDS", "OUTPUT_KINDS", "LAYOUT"]

PTR = abi.PTR
I1, I8, I32, I64, F64 = abi.I1, abi.I8, abi.I32, abi.I64, abi.F64


#: by-value LLVM type of each input kind
INPUT_KINDS = {"f64": F64, "i64": I64, "bool": I1, "ptr": PTR}
#: LLVM type stored through each output pointer
OUTPUT_KINDS = {"f64": F64, "i64": I64, "bool": I8, "ptr": PTR}

_KIND_DESC = {"f64": "float", "i64": "int", "bool": "bool", "ptr": "int address"}
_ARRAY_ELEM_DESC = {"f64": "float64", "i64": "int64", "bool": "bool"}


def _is_array_kind(kind) -> bool:
    return isinstance(kind, str) and is_array(kind) and kind in ARRAY_TYPES


def _input_type(kind: str):
    if _is_array_kind(kind):
        return PTR
    if kind not in INPUT_KINDS:
        raise ValueError(f"unknown input kind {kind!r} (expected one of {list(INPUT_KINDS)} or "
                         "an array type such as 'f64[1d]')")
    return INPUT_KINDS[kind]


def kernel_type(params: Sequence[str], pointers: int) -> ir.FunctionType:
    """The type of the kernel a wrapper calls: ``i32 (ptr ctx, <a value per kind in
    params>, <pointers> more pointers)`` (the shadows' descriptors and the outputs)."""
    return ir.FunctionType(I32, [PTR] + [_input_type(k) for k in params] + [PTR] * pointers)


def _check_result_spec(result, nouts: int, nshadows: int) -> None:
    if result is None:
        return
    if isinstance(result, Shadow):
        if not 0 <= result.index < nshadows:
            raise ValueError(f"result spec refers to shadow {result.index}, but there are "
                             f"{nshadows} shadows")
        return
    if isinstance(result, bool) or not isinstance(result, (int, tuple)):
        raise TypeError(f"result spec must be an int, Shadow, None or a tuple of specs, got {result!r}")
    if isinstance(result, int):
        if not 0 <= result < nouts:
            raise ValueError(f"result spec refers to output {result}, but there are {nouts} outputs")
        return
    for r in result:
        _check_result_spec(r, nouts, nshadows)




def _kind_desc(kind: str) -> str:
    if _is_array_kind(kind):
        return f"{_ARRAY_ELEM_DESC[elem_type(kind)]} {ndim_of(kind)}-D array"
    return _KIND_DESC[kind]


def _emit_args(e: WrapperEmitter, params: list[str], slots: dict) -> list:
    """Check and convert each argument (falling back on a mismatch); returns the kernel's
    input values and leaves the builder in the block after the last check."""
    b, n = e.b, len(params)
    args = e.fn.args[1]
    kinds_text = ", ".join(_kind_desc(k) for k in params)
    keywords = e.mismatch_block("keywords", "%U() takes no keyword arguments")
    no_keywords = e.block("no_keywords")
    b.cbranch(b.icmp_unsigned("!=", e.fn.args[3], e.null()), keywords, no_keywords)
    b.position_at_end(no_keywords)
    bad_count = e.mismatch_block(
        "bad_nargs", f"%U() takes {n} argument{'s' if n != 1 else ''} ({kinds_text}), got %zd",
        extra=lambda: [e.fn.args[2]])
    first = e.block("arg0" if params else "args_ok")
    b.cbranch(b.icmp_signed("==", e.fn.args[2], ir.Constant(SSIZE, n)), first, bad_count)
    cur, values = first, []
    for i, kind in enumerate(params):
        b.position_at_end(cur)
        o = b.load(b.gep(args, [ir.Constant(I64, i)], inbounds=True, source_etype=PTR), typ=PTR)
        desc = _kind_desc(kind) + " (exact type)"
        if LAYOUT["tp_name"] is not None:
            bad = e.mismatch_block(
                f"bad_arg{i}", f"%U(): argument {i + 1} must be {desc}, not %.200s",
                extra=lambda o=o: [b.load(byte_gep(b, e.type_of(o), LAYOUT["tp_name"]), typ=PTR)])
        else:
            bad = e.mismatch_block(f"bad_arg{i}", f"%U(): argument {i + 1} must be {desc}")
        nxt = e.block(f"arg{i + 1}" if i + 1 < n else "args_ok")
        values.append(_emit_arg(e, i, kind, o, bad, nxt, slots))
        cur = nxt
    b.position_at_end(cur)
    return values


def _emit_arg(e: WrapperEmitter, i: int, kind: str, o, bad: ir.Block, nxt: ir.Block, slots: dict):
    """Convert argument `o` of `kind`, branching to `nxt` (or `bad`); returns its value."""
    b = e.b
    if _is_array_kind(kind):
        pywrap_arrays.emit_arg(e, o, kind, slots[i], bad, nxt, i)
        return slots[i]
    if kind == "bool":
        is_t = b.icmp_unsigned("==", o, extern(e.m, "_Py_TrueStruct"))
        is_f = b.icmp_unsigned("==", o, extern(e.m, "_Py_FalseStruct"))
        b.cbranch(b.or_(is_t, is_f), nxt, bad)
        return is_t
    conv = e.block(f"arg{i}_conv")
    b.cbranch(e.is_exact(o, "PyFloat_Type" if kind == "f64" else "PyLong_Type"), conv, bad)
    b.position_at_end(conv)
    if kind == "f64":
        if LAYOUT["ob_fval"] is not None:
            v = b.load(byte_gep(b, o, LAYOUT["ob_fval"]), typ=F64)
        else:
            v = e.call("PyFloat_AsDouble", F64, [PTR], [o])
        b.branch(nxt)
        return v
    if kind == "i64":
        v = e.call("PyLong_AsLongLong", I64, [PTR], [o])
        failed = b.icmp_signed("==", v, ir.Constant(I64, -1))
        overflow = e.mismatch_block(f"ovf_arg{i}", f"%U(): argument {i + 1} does not fit in int64")
    else:  # ptr
        v = e.call("PyLong_AsVoidPtr", PTR, [PTR], [o])
        failed = b.icmp_unsigned("==", v, e.null())
        overflow = e.mismatch_block(f"ovf_arg{i}", f"%U(): argument {i + 1} is not a valid address")
    chk = e.block(f"arg{i}_errchk")
    b.cbranch(failed, chk, nxt)
    b.position_at_end(chk)
    e.pyerr_check_clear(nxt, overflow)
    return v


def _emit_raise(e: WrapperEmitter, ctx, status, exit_blk: ir.Block) -> None:
    """Set the exception named by ctx.err_kind (or the status) with the kernel's message
    (or "error in compiled code of NAME()")."""
    b, zero = e.b, ir.Constant(I32, 0)
    kind_p = b.gep(ctx, [zero, ir.Constant(I32, abi.CTX_ERR_KIND)], inbounds=True, source_etype=abi.CTX)
    msg_p = b.gep(ctx, [zero, ir.Constant(I32, abi.CTX_ERR_MSG)], inbounds=True, source_etype=abi.CTX)
    kind_v = b.load(kind_p, typ=I32)
    kind_v = b.select(b.icmp_signed("==", kind_v, zero), status, kind_v)
    msg_v = _message(e, b.load(msg_p, typ=PTR), exit_blk)
    raise_blk, default_blk = e.block("raise"), e.block("kind_default")
    sw = b.switch(kind_v, default_blk)
    incoming = []
    for k, exc_name in enumerate(abi.ERROR_KINDS):
        if exc_name in (None, "StrongZeros"):   # StrongZeros without a retry: RuntimeError
            continue
        blk = e.block(f"kind{k}")
        sw.add_case(ir.Constant(I32, k), blk)
        b.position_at_end(blk)
        if exc_name == "LinAlgError":
            _raise_linalg_error(e, msg_v, raise_blk, exit_blk, incoming)
            continue
        incoming.append((b.load(extern(e.m, f"PyExc_{exc_name}"), typ=PTR), blk))
        b.branch(raise_blk)
    b.position_at_end(default_blk)
    incoming.append((b.load(extern(e.m, "PyExc_RuntimeError"), typ=PTR), default_blk))
    b.branch(raise_blk)
    b.position_at_end(raise_blk)
    exc = b.phi(PTR)
    for v, blk in incoming:
        exc.add_incoming(v, blk)
    b.call(e.capi("PyErr_SetObject", ir.VoidType(), [PTR, PTR]), [exc, msg_v])
    e.call("Py_DecRef", ir.VoidType(), [PTR], [msg_v])
    b.branch(exit_blk)


def _message(e: WrapperEmitter, msg, exit_blk: ir.Block):
    """A new str: the kernel's message `msg` (a C string), or "error in compiled code of
    NAME()" when it is NULL; to `exit_blk` if it cannot be made (the exception is set)."""
    b = e.b
    given, default, made = e.block("msg_given"), e.block("msg_default"), e.block("msg_made")
    b.cbranch(b.icmp_unsigned("==", msg, e.null()), default, given)
    b.position_at_end(given)
    from_kernel = e.call("PyUnicode_FromString", PTR, [PTR], [msg])
    b.branch(made)
    b.position_at_end(default)
    fmt = cstr(e.m, f"{e.name}__errmsg", "error in compiled code of %U()")
    from_name = b.call(e.capi("PyUnicode_FromFormat", PTR, [PTR], var_arg=True),
                       [fmt, e.name_obj()])
    b.branch(made)
    b.position_at_end(made)
    text = b.phi(PTR)
    text.add_incoming(from_kernel, given)
    text.add_incoming(from_name, default)
    e.branch_if_null(text, exit_blk)
    return text


def _raise_linalg_error(e: WrapperEmitter, msg, raise_blk, exit_blk, incoming) -> None:
    """Set numpy.linalg.LinAlgError (looked up when raised: it is not a builtin) with the
    message `msg` (a str, released here); a ValueError, its base class, if numpy.linalg cannot
    be read."""
    b, null = e.b, e.null()
    fallback = e.block("linalg_fallback")
    name = cstr(e.m, f"{e.name}__linalg", "numpy.linalg")
    mod = e.call("PyImport_ImportModule", PTR, [PTR], [name])
    got_mod = e.block("linalg_module")
    b.cbranch(b.icmp_unsigned("==", mod, null), fallback, got_mod)
    b.position_at_end(got_mod)
    attr = cstr(e.m, f"{e.name}__linalgerror", "LinAlgError")
    cls = e.call("PyObject_GetAttrString", PTR, [PTR, PTR], [mod, attr])
    e.call("Py_DecRef", ir.VoidType(), [PTR], [mod])
    got_cls = e.block("linalg_class")
    b.cbranch(b.icmp_unsigned("==", cls, null), fallback, got_cls)
    b.position_at_end(got_cls)
    e.call("PyErr_SetObject", ir.VoidType(), [PTR, PTR], [cls, msg])
    e.call("Py_DecRef", ir.VoidType(), [PTR], [cls])
    e.call("Py_DecRef", ir.VoidType(), [PTR], [msg])
    b.branch(exit_blk)
    b.position_at_end(fallback)
    e.call("PyErr_Clear", ir.VoidType(), [], [])
    incoming.append((b.load(extern(e.m, "PyExc_ValueError"), typ=PTR), fallback))
    b.branch(raise_blk)


def _emit_result(e: WrapperEmitter, result, outs: list[str], slots: list, shadows: list, res,
                 exit_blk: ir.Block) -> None:
    """Build the result object into `res` and go to `exit_blk` (res stays NULL on failure,
    with the exception set)."""
    b = e.b

    def scalar(i: int, fail: ir.Block):
        kind = outs[i]
        if _is_array_kind(kind):
            return pywrap_arrays.emit_result(e, kind, slots[i], fail)
        v = b.load(slots[i], typ=OUTPUT_KINDS[kind])
        if kind == "f64":
            obj = e.call("PyFloat_FromDouble", PTR, [F64], [v])
        elif kind == "i64":
            obj = e.call("PyLong_FromLongLong", PTR, [I64], [v])
        elif kind == "bool":
            obj = e.call("PyBool_FromLong", PTR, [LONG],
                         [b.zext(b.icmp_unsigned("!=", v, ir.Constant(I8, 0)), LONG)])
        else:
            obj = e.call("PyLong_FromVoidPtr", PTR, [PTR], [v])
        e.branch_if_null(obj, fail)
        return obj

    def value(spec, fail: ir.Block):
        """A new reference for a non-tuple spec (never NULL: `fail` otherwise)."""
        if spec is None:
            obj = extern(e.m, "_Py_NoneStruct")
        elif isinstance(spec, Shadow):
            obj = b.load(shadows[spec.index], typ=PTR)
        else:
            return scalar(spec, fail)
        e.call("Py_IncRef", ir.VoidType(), [PTR], [obj])  # correct on 3.11, harmless on 3.12+
        return obj

    if not isinstance(result, tuple):
        b.store(value(result, exit_blk), res)
        b.branch(exit_blk)
        return
    top = e.call("PyTuple_New", PTR, [SSIZE], [ir.Constant(SSIZE, len(result))])
    e.branch_if_null(top, exit_blk)
    fail = e.block("result_fail")

    def fill(t, spec: tuple):
        # Items are stored into their (still private) tuple right away, so on failure only
        # the top-level tuple has to be released.
        for k, s in enumerate(spec):
            if isinstance(s, tuple):
                sub = e.call("PyTuple_New", PTR, [SSIZE], [ir.Constant(SSIZE, len(s))])
                e.branch_if_null(sub, fail)
                e.set_item(t, k, sub)
                fill(sub, s)
            else:
                e.set_item(t, k, value(s, fail))

    fill(top, result)
    b.store(top, res)
    b.branch(exit_blk)
    b.position_at_end(fail)
    e.call("Py_DecRef", ir.VoidType(), [PTR], [top])
    b.branch(exit_blk)


def _validate(kernel, module: ir.Module, name: str, params: list[str],
              outs: list[str], shadows: list[int], result) -> None:
    for k in outs:
        if k not in OUTPUT_KINDS and not _is_array_kind(k):
            raise ValueError(f"unknown output kind {k!r} (expected one of {list(OUTPUT_KINDS)} "
                             "or an array type)")
    if any(_is_array_kind(k) for k in params + outs) and pywrap_arrays.NUMPY_LAYOUT is None:
        raise ValueError("array kinds need numpy's object layout, which could not be verified "
                         "in this process (use codegen.python.cffi_call)")
    for p in shadows:
        if not 0 <= p < len(params) or not _is_array_kind(params[p]) or elem_type(params[p]) != "f64":
            raise ValueError(f"shadow of argument {p}: not a float64 array argument")
    _check_result_spec(result, len(outs), len(shadows))
    ftype = kernel if isinstance(kernel, ir.FunctionType) else kernel.function_type
    expected = list(kernel_type(params, len(shadows) + len(outs)).args)
    if len(ftype.args) != len(expected) or any(
            (isinstance(e, ir.PointerType) and not isinstance(a, ir.PointerType))
            or (not isinstance(e, ir.PointerType) and a != e)
            for a, e in zip(ftype.args, expected)) or ftype.return_type != I32:
        raise ValueError(f"kernel {getattr(kernel, 'name', '')} has type {ftype}, but params={params} "
                         f"shadows={shadows} outs={outs} need i32 ({', '.join(map(str, expected))})")
    if isinstance(kernel, ir.Function) and kernel.module is not module:
        raise ValueError(f"kernel {kernel.name} must be defined in the same module as its wrapper")
    for sym in (name, def_symbol(name)):
        if sym in module.globals:
            raise ValueError(f"symbol {sym!r} already exists in the module")


def emit_wrapper(module: ir.Module, kernel: ir.Function, *, name: str, params: Sequence[str],
                 outs: Sequence[str], result, doc: str = "", pyname: str | None = None,
                 release_gil: bool = False, shadows: Sequence[int] = (),
                 retry: bool = False) -> str:
    """One wrapper (:func:`emit_wrappers` with one entry): the PyMethodDef symbol."""
    return emit_wrappers(module, kernel, [(name, result, doc)], params=params, outs=outs,
                         pyname=pyname, release_gil=release_gil, shadows=shadows,
                         retry=retry)[0]


def emit_wrappers(module: ir.Module, kernel: ir.Function | ir.FunctionType, entries: Sequence[tuple],
                  *, params: Sequence[str], outs: Sequence[str], pyname: str | None = None,
                  release_gil: bool = False, shadows: Sequence[int] = (),
                  retry: bool = False) -> list[str]:
    """For each `entries` item ``(name, result, doc)``, add ``PyObject* <name>(PyObject*
    self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)`` and its PyMethodDef
    global ``<name>__def`` to `module`. Several entries (grad and value_and_grad of one
    kernel) share one body, ``<first name>__impl``, which takes the entry's number and builds
    that entry's result: the arguments are checked and converted by one function instead of
    one per entry (LLVM's time is per instruction).

    `params` are the kinds of the Python arguments ('f64', 'i64', 'bool', 'ptr' or an array
    type such as 'f64[2d]', read in place: wrap_arrays.py), passed to the kernel in order after
    ctx; `shadows` lists float64 array arguments for which a zero array of the same shape is
    made and passed after them; `outs` are the kinds of the kernel's outputs. `result`
    describes the returned object: an int i (outs[i] as float/int/bool/int address, or a new
    array), a :class:`Shadow`, None (Py_None) or a tuple of such specs (nested tuples
    allowed). `doc` becomes ``__doc__`` (None if empty); `pyname` the ``__name__`` (default:
    `name`). `release_gil` releases the GIL around the kernel call (ignored, i.e. the GIL is
    kept, if the kernel uses the C API: :func:`uses_python_api`). With `retry`, the error
    kind StrongZeros calls the CodeOwner's retry with the arguments and returns its result.

    Returns the PyMethodDef symbol names. They and (with arrays) the numpy slots are data
    globals of external linkage, which :func:`jit.compile_module` exports
    (:func:`jit.exported_data`); :func:`make_callable` fills the numpy slots.
    """
    params, outs, shadows = list(params), list(outs), list(shadows)
    for name, result, _doc in entries:
        _validate(kernel, module, name, params, outs, shadows, result)
    name, given = entries[0][0], pyname
    pyname = pyname or name
    wrap_t = ir.FunctionType(PTR, [PTR, PTR, SSIZE, PTR])
    if len(entries) == 1:
        wrap = ir.Function(module, wrap_t, name)
    else:
        wrap = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, SSIZE, PTR, I32]),
                           f"{name}__impl")
        wrap.linkage = "internal"
        wrap.attributes.add("noinline")
    wrap.args[1].name, wrap.args[2].name, wrap.args[3].name = "args", "nargs", "kwnames"
    e = WrapperEmitter(module, wrap, wrap.name, pyname)
    b, null = e.b, e.null()

    # -- stack slots (the kernel's context, outputs, array descriptors; shadows; result) -------
    ctx = b.alloca(abi.CTX, name="ctx")
    b.store(ir.Constant(abi.CTX, None), ctx)
    out_types = [abi.array_struct(ndim_of(k)) if _is_array_kind(k) else OUTPUT_KINDS[k] for k in outs]
    slots = [b.alloca(t, name=f"out{i}") for i, t in enumerate(out_types)]
    for t, s in zip(out_types, slots):
        b.store(ir.Constant(t, None), s)
    descs = {i: b.alloca(abi.array_struct(ndim_of(k)), name=f"arg{i}_desc")
             for i, k in enumerate(params) if _is_array_kind(k)}
    shadow_descs = [b.alloca(abi.array_struct(ndim_of(params[p])), name=f"shadow{j}_desc")
                    for j, p in enumerate(shadows)]
    shadow_objs = [b.alloca(PTR, name=f"shadow{j}") for j in range(len(shadows))]
    res = b.alloca(PTR, name="result")
    for s in shadow_objs + [res]:
        b.store(null, s)
    exit_blk = e.block("exit")

    # -- arguments, shadows, kernel call --------------------------------------------------------
    values = _emit_args(e, params, descs)
    for j, p in enumerate(shadows):
        shape = pywrap_arrays.load_shape(b, descs[p], params[p])
        obj = pywrap_arrays.emit_shadow(e, params[p], shape, shadow_descs[j], exit_blk)
        b.store(obj, shadow_objs[j])
    kargs = [ctx] + values + shadow_descs + slots
    if isinstance(kernel, ir.FunctionType):
        kernel = e.kernel_pointer(ir.PointerType(kernel))
    elif uses_python_api(kernel):
        release_gil = False
    if release_gil:
        tstate = e.call("PyEval_SaveThread", PTR, [], [])
        status = b.call(kernel, kargs, name="status")
        e.call("PyEval_RestoreThread", ir.VoidType(), [PTR], [tstate])
    else:
        status = b.call(kernel, kargs, name="status")
    ok, err = e.block("ok"), e.block("error")
    b.cbranch(b.icmp_signed("==", status, ir.Constant(I32, 0)), ok, err)
    b.position_at_end(err)
    if retry:   # the kernel asks for strong zeros: the retry runs the call again
        again, other = e.block("strong_zeros"), e.block("raise_error")
        b.cbranch(b.icmp_signed("==", status, ir.Constant(I32, abi.ERR_STRONG_ZEROS)),
                  again, other)
        b.position_at_end(again)
        b.store(e.call_retry(), res)
        b.branch(exit_blk)
        b.position_at_end(other)
    _emit_raise(e, ctx, status, exit_blk)
    b.position_at_end(ok)
    if len(entries) == 1:
        _emit_result(e, entries[0][1], outs, slots, shadow_objs, res, exit_blk)
    else:  # the entry's own result
        sw = b.switch(wrap.args[4], exit_blk)
        for k, (_name, result, _doc) in enumerate(entries):
            blk = e.block(f"result{k}")
            sw.add_case(ir.Constant(I32, k), blk)
            b.position_at_end(blk)
            _emit_result(e, result, outs, slots, shadow_objs, res, exit_blk)

    # -- exit: the tape and arrays of the call die with it (after array results were copied) ---
    b.position_at_end(exit_blk)

    def field(k):
        return b.load(b.gep(ctx, [ir.Constant(I32, 0), ir.Constant(I32, k)], inbounds=True,
                            source_etype=abi.CTX), typ=PTR)
    held = b.or_(b.icmp_unsigned("!=", field(abi.CTX_TAPE_BASE), null),
                 b.icmp_unsigned("!=", field(abi.CTX_ARENA), null))
    with b.if_then(held, likely=False):
        release = declare(module, "pyad_ctx_release", ir.VoidType(), [PTR])
        # it frees ctx's blocks and keeps no pointer to ctx: LLVM may then forward the null
        # fields stored above past the calls in between (codegen/passes.py)
        release.args[0].attributes.add("captures(none)")
        b.call(release, [ctx])
    for s in shadow_objs:  # the wrapper's own references (Py_DecRef ignores NULL)
        e.call("Py_DecRef", ir.VoidType(), [PTR], [b.load(s, typ=PTR)])
    b.ret(b.load(res, typ=PTR))

    symbols = []
    for k, (name, _result, doc) in enumerate(entries):
        fn = wrap
        if len(entries) > 1:  # the entry: the shared body with its number
            fn = ir.Function(module, wrap_t, name)
            tb = ir.IRBuilder(fn.append_basic_block("entry"))
            tb.ret(tb.call(wrap, [*fn.args, ir.Constant(I32, k)], tail=True))
        symbols.append(_method_def(module, fn, name, given or name, doc))
    return symbols


def _method_def(module: ir.Module, fn: ir.Function, name: str, pyname: str, doc: str) -> str:
    """The PyMethodDef {ml_name, ml_meth, ml_flags, ml_doc} of wrapper `fn`: its symbol."""
    null = ir.Constant(PTR, None)
    name_gv = cstr(module, f"{name}__name", pyname)
    doc_gv = cstr(module, f"{name}__doc", doc) if doc else null
    mdef_t = ir.LiteralStructType([PTR, PTR, I32, PTR])
    mdef = ir.GlobalVariable(module, mdef_t, def_symbol(name))
    flags = ir.Constant(I32, METH_FASTCALL | METH_KEYWORDS)
    mdef.initializer = ir.Constant(mdef_t, [name_gv, fn, flags, doc_gv])
    return def_symbol(name)
