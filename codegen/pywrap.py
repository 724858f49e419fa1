"""METH_FASTCALL CPython wrappers, emitted in LLVM IR around generated kernels.

A wrapper has the C signature ``PyObject *w(PyObject *self, PyObject *const *args,
Py_ssize_t nargs)`` and lives in the same LLVM module as its kernel, together with its
``PyMethodDef`` (``<name>__def``), so its lifetime is the lifetime of the compiled code. It

1. checks the argument count and each argument's exact type inline and converts it
   ('f64': exact float, ob_fval read inline; 'i64': exact int via PyLong_AsLongLong;
   'bool': the True/False singletons; 'ptr': exact int via PyLong_AsVoidPtr);
2. on any mismatch calls the Python object stored in ``<name>__fallback`` (a dispatcher) with
   the original arguments, or raises TypeError if there is none;
3. calls the kernel with a zeroed ``pyad_ctx`` and stack slots for the outputs -- with
   ``release_gil``, between ``PyEval_SaveThread()`` and ``PyEval_RestoreThread()``, so other
   Python threads run meanwhile (only the kernel call: no Python object is touched while the
   GIL is released; a kernel that itself references the C API keeps the GIL);
4. maps a non-zero status to the exception named by ``abi.ERROR_KINDS[ctx.err_kind]`` with
   the kernel's message, or builds the result object (float/int/bool/address, None, nested
   tuples).

The kernel ABI is described in :mod:`.abi`. Byte offsets of CPython objects are checked once at
import (:data:`LAYOUT`); where a check fails the wrapper calls the C API instead.
"""
from __future__ import annotations

import ctypes
import sys
from typing import Sequence

from llvmlite import ir

from . import abi
from . import jit

if sys.implementation.name != "cpython":  # pragma: no cover
    raise ImportError("pyad.codegen.pywrap requires CPython (it emits C-API calls)")

__all__ = ["emit_wrapper", "has_loop", "uses_python_api", "make_callable", "set_fallback", "library_of", "def_symbol", "fallback_symbol",
           "INPUT_KINDS", "OUTPUT_KINDS", "LAYOUT"]

PTR = abi.PTR
I1, I8, I32, I64, F64 = abi.I1, abi.I8, abi.I32, abi.I64, abi.F64

METH_FASTCALL = 0x80

#: by-value LLVM type of each input kind
INPUT_KINDS = {"f64": F64, "i64": I64, "bool": I1, "ptr": PTR}
#: LLVM type stored through each output pointer
OUTPUT_KINDS = {"f64": F64, "i64": I64, "bool": I8, "ptr": PTR}

_KIND_DESC = {"f64": "float", "i64": "int", "bool": "bool", "ptr": "int address"}


# ---------------------------------------------------------------------------------------------
# CPython layout facts, verified once
# ---------------------------------------------------------------------------------------------

def _verify_layout() -> dict:
    """Check the byte offsets the wrapper would read inline; a fact that cannot be confirmed
    is None and the wrapper uses a C-API call instead."""
    lay: dict = {"ssize": ctypes.sizeof(ctypes.c_ssize_t), "long": ctypes.sizeof(ctypes.c_long)}
    vp = ctypes.c_void_p
    objs = (1.5, -2.25, 7, (1, 2), "s", None)

    def at(obj, off):
        return vp.from_address(id(obj) + off).value

    ob_type = 8 if ctypes.sizeof(vp) == 8 else None
    if ob_type is not None and not all(at(o, ob_type) == id(type(o)) for o in objs):
        ob_type = None
    lay["ob_type"] = ob_type

    fval = None
    if ob_type is not None and float.__basicsize__ == 24:
        if all(ctypes.c_double.from_address(id(x) + 16).value == x for x in (1.5, -2.25, 1e300)):
            fval = 16
    lay["ob_fval"] = fval

    items = None
    t = (object(), object(), object())
    off = tuple.__basicsize__
    if ob_type is not None and tuple.__itemsize__ == ctypes.sizeof(vp) and all(
            at(t, off + k * tuple.__itemsize__) == id(t[k]) for k in range(3)):
        items = off
    lay["tuple_items"] = items

    tp_name = None
    if ob_type is not None:
        try:
            if all(ctypes.c_char_p.from_address(id(tp) + 24).value == tp.__name__.encode()
                   for tp in (float, int, tuple, str)):
                tp_name = 24
        except (ValueError, OSError):  # pragma: no cover
            tp_name = None
    lay["tp_name"] = tp_name
    return lay


#: Verified CPython layout facts: ob_type/ob_fval/tuple_items/tp_name offsets (or None),
#: sizes of Py_ssize_t and C long.
LAYOUT = _verify_layout()
_SSIZE = ir.IntType(8 * LAYOUT["ssize"])
_LONG = ir.IntType(8 * LAYOUT["long"])


# ---------------------------------------------------------------------------------------------
# Small IR helpers
# ---------------------------------------------------------------------------------------------

def def_symbol(name: str) -> str:
    """Symbol of the PyMethodDef global of wrapper `name`."""
    return f"{name}__def"


def fallback_symbol(name: str) -> str:
    """Symbol of the fallback slot (PyObject*) of wrapper `name`."""
    return f"{name}__fallback"


def _func(module: ir.Module, name: str, ret, args, var_arg: bool = False) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, args, var_arg=var_arg), name)
    return fn


def _extern(module: ir.Module, name: str):
    """An external data symbol (its address is what we use; `ptr`-typed so it can be loaded)."""
    gv = module.globals.get(name)
    if gv is None:
        gv = ir.GlobalVariable(module, PTR, name)
    return gv


def _cstr(module: ir.Module, hint: str, text: str) -> ir.GlobalVariable:
    data = bytearray(text.encode("utf-8") + b"\0")
    gv = ir.GlobalVariable(module, ir.ArrayType(I8, len(data)), module.get_unique_name(hint))
    gv.initializer = ir.Constant(gv.value_type, data)
    gv.global_constant = True
    gv.linkage = "private"
    gv.unnamed_addr = True
    return gv


def _byte_gep(b: ir.IRBuilder, p, off: int):
    return b.gep(p, [ir.Constant(I64, off)], inbounds=True, source_etype=I8)


def _check_result_spec(result, nouts: int) -> None:
    if result is None:
        return
    if isinstance(result, bool) or not isinstance(result, (int, tuple)):
        raise TypeError(f"result spec must be an int, None or a tuple of specs, got {result!r}")
    if isinstance(result, int):
        if not 0 <= result < nouts:
            raise ValueError(f"result spec refers to output {result}, but there are {nouts} outputs")
        return
    for r in result:
        _check_result_spec(r, nouts)


class _Emitter:
    def __init__(self, module: ir.Module, fn: ir.Function, pyname: str):
        self.m = module
        self.fn = fn
        self.pyname = pyname
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))

    def block(self, name: str) -> ir.Block:
        return self.fn.append_basic_block(name)

    def capi(self, name: str, ret, args, var_arg=False):
        return _func(self.m, name, ret, args, var_arg)

    def call(self, name: str, ret, args, values):
        return self.b.call(self.capi(name, ret, args), values)

    def null(self):
        return ir.Constant(PTR, None)

    def type_of(self, o):
        """Py_TYPE(o) as a borrowed pointer."""
        if LAYOUT["ob_type"] is not None:
            return self.b.load(_byte_gep(self.b, o, LAYOUT["ob_type"]), typ=PTR)
        t = self.call("PyObject_Type", PTR, [PTR], [o])  # new reference; types are immortal enough
        self.call("Py_DecRef", ir.VoidType(), [PTR], [t])
        return t

    def is_exact(self, o, type_symbol: str):
        return self.b.icmp_unsigned("==", self.type_of(o), _extern(self.m, type_symbol))

    def pyerr_check_clear(self, ok_block: ir.Block, bad_block: ir.Block):
        """Branch to bad_block (after clearing the error) if an exception is set, else ok_block."""
        err = self.call("PyErr_Occurred", PTR, [], [])
        clear = self.block("clear_err")
        self.b.cbranch(self.b.icmp_unsigned("!=", err, self.null()), clear, ok_block)
        self.b.position_at_end(clear)
        self.call("PyErr_Clear", ir.VoidType(), [], [])
        self.b.branch(bad_block)


def uses_python_api(fn: ir.Function, _seen: set | None = None) -> bool:
    """Whether `fn` or a function it calls that is defined in the module references a CPython
    C-API symbol (Py* / _Py*), i.e. needs the GIL."""
    seen = set() if _seen is None else _seen
    if fn.name in seen:
        return False
    seen.add(fn.name)
    for blk in fn.blocks:
        for ins in blk.instructions:
            for op in [getattr(ins, "callee", None), *getattr(ins, "operands", ())]:
                if not isinstance(op, (ir.Function, ir.GlobalVariable)):
                    continue
                if op.name.startswith(("Py", "_Py")):
                    return True
                if isinstance(op, ir.Function) and op.blocks and uses_python_api(op, seen):
                    return True
    return False


def has_loop(fn: ir.Function, _seen: set | None = None) -> bool:
    """Whether `fn` or a function it calls that is defined in the module contains a loop (a
    cycle in its control-flow graph) or recursion: a kernel that may run long enough for a GIL
    release to pay off."""
    seen = set() if _seen is None else _seen
    if fn.name in seen:
        return True  # recursion
    seen.add(fn.name)
    state: dict = {}  # block -> 1 (on the DFS stack) / 2 (done)

    def successors(blk):
        term = blk.terminator
        if isinstance(term, ir.SwitchInstr):
            return [term.default] + [b for _v, b in term.cases]
        return [op for op in getattr(term, "operands", ()) if isinstance(op, ir.Block)]

    if fn.blocks:  # iterative DFS: a back edge to a block on the stack is a cycle
        stack = [(fn.blocks[0], iter(successors(fn.blocks[0])))]
        state[fn.blocks[0]] = 1
        while stack:
            blk, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[blk] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(successors(nxt))))
    for blk in fn.blocks:
        for ins in blk.instructions:
            callee = getattr(ins, "callee", None)
            if isinstance(callee, ir.Function) and callee.blocks and has_loop(callee, seen):
                return True
    seen.discard(fn.name)
    return False


def emit_wrapper(module: ir.Module, kernel: ir.Function, *, name: str, params: Sequence[str],
                 outs: Sequence[str], result, doc: str = "", pyname: str | None = None,
                 release_gil: bool = False) -> str:
    """Add ``PyObject* <name>(PyObject* self, PyObject* const* args, Py_ssize_t nargs)``, its
    PyMethodDef global ``<name>__def`` and the fallback slot ``<name>__fallback`` (a PyObject*,
    initially null) to `module`.

    `params` / `outs` are the kernel's input / output kinds ('f64', 'i64', 'bool', 'ptr'), in
    the order of the kernel's parameters after ctx. `result` describes the returned object:
    an int i (outs[i] as float/int/bool/int address), None (Py_None) or a tuple of such specs
    (nested tuples allowed). `doc` becomes ``__doc__`` (None if empty); `pyname` the
    ``__name__`` (default: `name`). `release_gil` releases the GIL around the kernel call
    (ignored, i.e. the GIL is kept, if the kernel uses the C API: :func:`uses_python_api`).

    Returns the PyMethodDef symbol name. It and the fallback slot are registered with
    :func:`jit.require_export`, so :func:`jit.compile_module` exports both automatically.
    """
    params, outs = list(params), list(outs)
    for k in params:
        if k not in INPUT_KINDS:
            raise ValueError(f"unknown input kind {k!r} (expected one of {list(INPUT_KINDS)})")
    for k in outs:
        if k not in OUTPUT_KINDS:
            raise ValueError(f"unknown output kind {k!r} (expected one of {list(OUTPUT_KINDS)})")
    _check_result_spec(result, len(outs))
    ftype = kernel.function_type
    expected = [PTR] + [INPUT_KINDS[k] for k in params] + [PTR] * len(outs)
    if len(ftype.args) != len(expected) or any(
            (isinstance(e, ir.PointerType) and not isinstance(a, ir.PointerType))
            or (not isinstance(e, ir.PointerType) and a != e)
            for a, e in zip(ftype.args, expected)) or ftype.return_type != I32:
        raise ValueError(f"kernel {kernel.name} has type {ftype}, but params={params} outs={outs} "
                         f"need i32 ({', '.join(map(str, expected))})")
    if kernel.module is not module:
        raise ValueError(f"kernel {kernel.name} must be defined in the same module as its wrapper")
    pyname = pyname or name
    pyfmt = pyname.replace("%", "%%")  # for PyErr_Format messages
    for sym in (name, def_symbol(name), fallback_symbol(name)):
        if sym in module.globals:
            raise ValueError(f"symbol {sym!r} already exists in the module")

    fallback = ir.GlobalVariable(module, PTR, fallback_symbol(name))
    fallback.initializer = ir.Constant(PTR, None)

    wrap = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, _SSIZE]), name)
    _self, args, nargs = wrap.args
    args.name, nargs.name = "args", "nargs"
    e = _Emitter(module, wrap, pyname)
    b = e.b
    null = e.null()

    # -- stack slots --------------------------------------------------------------------------
    ctx = b.alloca(abi.CTX, name="ctx")
    slots = [b.alloca(OUTPUT_KINDS[k], name=f"out{i}") for i, k in enumerate(outs)]
    b.store(ir.Constant(abi.CTX, None), ctx)
    for k, s in zip(outs, slots):
        b.store(ir.Constant(OUTPUT_KINDS[k], None), s)

    # -- fallback / TypeError blocks ----------------------------------------------------------
    kinds_text = ", ".join(_KIND_DESC[k] for k in params)
    call_fallback = e.block("call_fallback")
    b.position_at_end(call_fallback)
    fb = b.load(fallback, typ=PTR)
    r = e.call("PyObject_Vectorcall", PTR, [PTR, PTR, _SSIZE, PTR], [fb, args, nargs, null])
    b.ret(r)

    def mismatch_block(label: str, fmt: str, extra=None) -> ir.Block:
        """A block that calls the fallback if set, else raises TypeError(fmt % extra)."""
        blk = e.block(label)
        raise_blk = e.block(label + "_raise")
        b.position_at_end(blk)
        fbv = b.load(fallback, typ=PTR)
        b.cbranch(b.icmp_unsigned("!=", fbv, null), call_fallback, raise_blk)
        b.position_at_end(raise_blk)
        exc = b.load(_extern(module, "PyExc_TypeError"), typ=PTR)
        msg = _cstr(module, f"{name}__msg", fmt)
        vals = [exc, msg]
        if extra is not None:
            vals += extra(raise_blk)
            b.call(e.capi("PyErr_Format", PTR, [PTR, PTR], var_arg=True), vals)
        else:
            b.call(e.capi("PyErr_SetString", ir.VoidType(), [PTR, PTR]), vals)
        b.ret(null)
        return blk

    n = len(params)
    bad_count = mismatch_block(
        "bad_nargs",
        f"{pyfmt}() takes {n} argument{'s' if n != 1 else ''} ({kinds_text}), got %zd",
        extra=lambda blk: [nargs])

    # -- argument conversion ------------------------------------------------------------------
    first = e.block("arg0" if params else "call")
    b.position_at_end(wrap.entry_basic_block)
    b.cbranch(b.icmp_signed("==", nargs, ir.Constant(_SSIZE, n)), first, bad_count)
    cur = first
    values = []
    for i, kind in enumerate(params):
        b.position_at_end(cur)
        o = b.load(b.gep(args, [ir.Constant(I64, i)], inbounds=True, source_etype=PTR), typ=PTR)
        desc = _KIND_DESC[kind] + " (exact type)"
        if LAYOUT["tp_name"] is not None:
            def tpname(blk, o=o):
                return [b.load(_byte_gep(b, e.type_of(o), LAYOUT["tp_name"]), typ=PTR)]
            bad = mismatch_block(f"bad_arg{i}", f"{pyfmt}(): argument {i + 1} must be {desc}, not %.200s",
                                 extra=tpname)
        else:
            bad = mismatch_block(f"bad_arg{i}", f"{pyname}(): argument {i + 1} must be {desc}")
        b.position_at_end(cur)
        nxt = e.block(f"arg{i + 1}" if i + 1 < n else "call")
        if kind == "f64":
            conv = e.block(f"arg{i}_conv")
            b.cbranch(e.is_exact(o, "PyFloat_Type"), conv, bad)
            b.position_at_end(conv)
            if LAYOUT["ob_fval"] is not None:
                v = b.load(_byte_gep(b, o, LAYOUT["ob_fval"]), typ=F64)
            else:
                v = e.call("PyFloat_AsDouble", F64, [PTR], [o])
            b.branch(nxt)
        elif kind in ("i64", "ptr"):
            conv = e.block(f"arg{i}_conv")
            b.cbranch(e.is_exact(o, "PyLong_Type"), conv, bad)
            b.position_at_end(conv)
            if kind == "i64":
                v = e.call("PyLong_AsLongLong", I64, [PTR], [o])
                failed = b.icmp_signed("==", v, ir.Constant(I64, -1))
                overflow = mismatch_block(f"ovf_arg{i}", f"{pyname}(): argument {i + 1} does not fit in int64")
            else:
                v = e.call("PyLong_AsVoidPtr", PTR, [PTR], [o])
                failed = b.icmp_unsigned("==", v, null)
                overflow = mismatch_block(f"ovf_arg{i}", f"{pyname}(): argument {i + 1} is not a valid address")
            b.position_at_end(conv)
            chk = e.block(f"arg{i}_errchk")
            b.cbranch(failed, chk, nxt)
            b.position_at_end(chk)
            e.pyerr_check_clear(nxt, overflow)
        elif kind == "bool":
            is_t = b.icmp_unsigned("==", o, _extern(module, "_Py_TrueStruct"))
            is_f = b.icmp_unsigned("==", o, _extern(module, "_Py_FalseStruct"))
            b.cbranch(b.or_(is_t, is_f), nxt, bad)
            v = is_t
        else:  # pragma: no cover
            raise AssertionError(kind)
        values.append(v)
        cur = nxt

    b.position_at_end(cur)
    # -- kernel call --------------------------------------------------------------------------
    if release_gil and not uses_python_api(kernel):
        tstate = e.call("PyEval_SaveThread", PTR, [], [])
        status = b.call(kernel, [ctx] + values + slots, name="status")
        e.call("PyEval_RestoreThread", ir.VoidType(), [PTR], [tstate])
    else:
        status = b.call(kernel, [ctx] + values + slots, name="status")
    # the tape and arrays of a fused forward+backward call (or of a failed call) die with it
    def field(k):
        return b.load(b.gep(ctx, [ir.Constant(I32, 0), ir.Constant(I32, k)], inbounds=True,
                            source_etype=abi.CTX), typ=PTR)
    held = b.or_(b.icmp_unsigned("!=", field(abi.CTX_TAPE_BASE), ir.Constant(PTR, None)),
                 b.icmp_unsigned("!=", field(abi.CTX_ARENA), ir.Constant(PTR, None)))
    with b.if_then(held, likely=False):
        release = _func(module, "pyad_ctx_release", ir.VoidType(), [PTR])
        b.call(release, [ctx])
    ok = e.block("ok")
    err = e.block("error")
    b.cbranch(b.icmp_signed("==", status, ir.Constant(I32, 0)), ok, err)

    # -- error: raise the exception named by ctx.err_kind --------------------------------------
    b.position_at_end(err)
    zero = ir.Constant(I32, 0)
    kind_p = b.gep(ctx, [zero, ir.Constant(I32, abi.CTX_ERR_KIND)], inbounds=True, source_etype=abi.CTX)
    msg_p = b.gep(ctx, [zero, ir.Constant(I32, abi.CTX_ERR_MSG)], inbounds=True, source_etype=abi.CTX)
    kind_v = b.load(kind_p, typ=I32)
    kind_v = b.select(b.icmp_signed("==", kind_v, zero), status, kind_v)
    msg_v = b.load(msg_p, typ=PTR)
    default_msg = _cstr(module, f"{name}__errmsg", f"error in compiled code of {pyname}()")
    msg_v = b.select(b.icmp_unsigned("==", msg_v, null), default_msg, msg_v)
    raise_blk = e.block("raise")
    default_blk = e.block("kind_default")
    sw = b.switch(kind_v, default_blk)
    incoming = []
    for k, exc_name in enumerate(abi.ERROR_KINDS):
        if exc_name is None:
            continue
        blk = e.block(f"kind{k}")
        sw.add_case(ir.Constant(I32, k), blk)
        b.position_at_end(blk)
        incoming.append((b.load(_extern(module, f"PyExc_{exc_name}"), typ=PTR), blk))
        b.branch(raise_blk)
    b.position_at_end(default_blk)
    incoming.append((b.load(_extern(module, "PyExc_RuntimeError"), typ=PTR), default_blk))
    b.branch(raise_blk)
    b.position_at_end(raise_blk)
    exc = b.phi(PTR)
    for v, blk in incoming:
        exc.add_incoming(v, blk)
    b.call(e.capi("PyErr_SetString", ir.VoidType(), [PTR, PTR]), [exc, msg_v])
    b.ret(null)

    # -- result -------------------------------------------------------------------------------
    b.position_at_end(ok)

    def scalar(i: int):
        kind = outs[i]
        v = b.load(slots[i], typ=OUTPUT_KINDS[kind])
        if kind == "f64":
            return e.call("PyFloat_FromDouble", PTR, [F64], [v])
        if kind == "i64":
            return e.call("PyLong_FromLongLong", PTR, [I64], [v])
        if kind == "bool":
            return e.call("PyBool_FromLong", PTR, [_LONG], [b.zext(b.icmp_unsigned("!=", v, ir.Constant(I8, 0)), _LONG)])
        return e.call("PyLong_FromVoidPtr", PTR, [PTR], [v])

    def none():
        nn = _extern(module, "_Py_NoneStruct")
        e.call("Py_IncRef", ir.VoidType(), [PTR], [nn])  # correct on 3.11, harmless on 3.12+
        return nn

    if not isinstance(result, tuple):
        b.ret(none() if result is None else scalar(result))
    else:
        fail = e.block("result_fail")
        top = e.call("PyTuple_New", PTR, [_SSIZE], [ir.Constant(_SSIZE, len(result))])
        cont = e.block("tuple_ok")
        nulltop = e.block("tuple_null")
        b.cbranch(b.icmp_unsigned("==", top, null), nulltop, cont)
        b.position_at_end(nulltop)
        b.ret(null)
        b.position_at_end(cont)

        def set_item(t, k: int, v):
            if LAYOUT["tuple_items"] is not None:
                off = LAYOUT["tuple_items"] + k * (_SSIZE.width // 8)
                b.store(v, _byte_gep(b, t, off))
            else:
                e.call("PyTuple_SetItem", I32, [PTR, _SSIZE, PTR], [t, ir.Constant(_SSIZE, k), v])

        def checked(v):
            good = e.block("item_ok")
            b.cbranch(b.icmp_unsigned("==", v, null), fail, good)
            b.position_at_end(good)
            return v

        def fill(t, spec: tuple):
            # Items are stored into their (still private) tuple right away, so on failure only
            # the top-level tuple has to be released.
            for k, s in enumerate(spec):
                if isinstance(s, tuple):
                    sub = checked(e.call("PyTuple_New", PTR, [_SSIZE], [ir.Constant(_SSIZE, len(s))]))
                    set_item(t, k, sub)
                    fill(sub, s)
                elif s is None:
                    set_item(t, k, none())
                else:
                    set_item(t, k, checked(scalar(s)))

        fill(top, result)
        b.ret(top)
        b.position_at_end(fail)
        e.call("Py_DecRef", ir.VoidType(), [PTR], [top])
        b.ret(null)

    # -- PyMethodDef {ml_name, ml_meth, ml_flags, ml_doc} -------------------------------------
    name_gv = _cstr(module, f"{name}__name", pyname)
    doc_gv = _cstr(module, f"{name}__doc", doc) if doc else null
    mdef_t = ir.LiteralStructType([PTR, PTR, I32, PTR])
    mdef = ir.GlobalVariable(module, mdef_t, def_symbol(name))
    mdef.initializer = ir.Constant(mdef_t, [name_gv, wrap, ir.Constant(I32, METH_FASTCALL), doc_gv])

    jit.require_export(module, def_symbol(name))
    jit.require_export(module, fallback_symbol(name))
    return def_symbol(name)


# ---------------------------------------------------------------------------------------------
# Python side
# ---------------------------------------------------------------------------------------------

_PyCFunction_NewEx = ctypes.pythonapi.PyCFunction_NewEx
_PyCFunction_NewEx.restype = ctypes.py_object
_PyCFunction_NewEx.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.py_object]


def set_fallback(lib: "jit.CompiledLibrary", name: str, fallback) -> None:
    """Store `fallback` (a callable, or None to clear) into the fallback slot of wrapper
    `name`. The library keeps a strong reference for as long as it lives (also after the slot
    is overwritten, since a call through the old value may still be running)."""
    if fallback is not None and not callable(fallback):
        raise TypeError(f"fallback must be callable, got {type(fallback).__name__}")
    slot = lib.address(fallback_symbol(name))
    if fallback is not None:
        lib.keep_alive(fallback)
    ctypes.c_void_p.from_address(slot).value = None if fallback is None else id(fallback)


def make_callable(lib: "jit.CompiledLibrary", name: str, fallback=None, *, module: str | None = None,
                  pickle_as: tuple | None = None):
    """The Python builtin function for wrapper `name` in `lib`, made by PyCFunction_NewEx.

    Its ``__self__`` (m_self) is ``lib.code_owner()``, which holds `lib` and the code, so both
    live as long as the callable (``library_of(f)`` returns `lib`). If `fallback` is given it
    is stored into the wrapper's fallback slot (shared by every callable made from this wrapper
    in this library) and kept alive by `lib`. `module` sets ``__module__``. `pickle_as` =
    ``(obj, attr)`` makes the callable pickle as ``getattr(obj, attr)`` (see jit.CodeOwner).
    """
    def_addr = lib.address(def_symbol(name))
    if fallback is not None:
        set_fallback(lib, name, fallback)
    return _PyCFunction_NewEx(def_addr, lib.code_owner(pickle_as), module)


def library_of(func) -> "jit.CompiledLibrary":
    """The CompiledLibrary behind a callable made by make_callable."""
    owner = getattr(func, "__self__", None)
    if not isinstance(owner, jit.CodeOwner):
        raise TypeError(f"{func!r} was not made by pyad.codegen.pywrap.make_callable")
    return owner.library

