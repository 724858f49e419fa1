"""CPython objects as generated code sees them: the object layout facts verified once per
process (:data:`LAYOUT`), the symbols of a wrapper's globals, and :class:`WrapperEmitter`, the
builder of a function that calls the C API (used by pywrap.py and pywrap_arrays.py).

Byte offsets of CPython objects are checked at import; where a check fails the wrappers call
the C API instead of reading the field inline.
"""
from __future__ import annotations

import sys

from llvmlite import ir

from .. import abi
from ..library import FALLBACK_ITEM, KERNEL_ITEM, NAME_ITEM, RETRY_ITEM
from .callables import LAYOUT

if sys.implementation.name != "cpython":  # pragma: no cover
    raise ImportError("pyad.codegen.python.pyobj requires CPython (it emits C-API calls)")

__all__ = ["SSIZE", "LONG", "WrapperEmitter",
           "declare", "extern", "cstr", "byte_gep"]

PTR = abi.PTR
I8, I32, I64 = abi.I8, abi.I32, abi.I64


#: Py_ssize_t and C long as LLVM types
SSIZE = ir.IntType(8 * LAYOUT["ssize"])
LONG = ir.IntType(8 * LAYOUT["long"])


# ---------------------------------------------------------------------------------------------
# Small IR helpers
# ---------------------------------------------------------------------------------------------

def declare(module: ir.Module, name: str, ret, args, var_arg: bool = False) -> ir.Function:
    """The function `name` of `module`, declared on first use (a C-API or runtime function)."""
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, args, var_arg=var_arg), name)
    return fn


def extern(module: ir.Module, name: str):
    """An external data symbol (its address is what we use; `ptr`-typed so it can be loaded)."""
    gv = module.globals.get(name)
    if gv is None:
        gv = ir.GlobalVariable(module, PTR, name)
    return gv


def cstr(module: ir.Module, hint: str, text: str) -> ir.GlobalVariable:
    data = bytearray(text.encode("utf-8") + b"\0")
    gv = ir.GlobalVariable(module, ir.ArrayType(I8, len(data)), module.get_unique_name(hint))
    gv.initializer = ir.Constant(gv.value_type, data)
    gv.global_constant = True
    gv.linkage = "private"
    gv.unnamed_addr = True
    return gv


def byte_gep(b: ir.IRBuilder, p, off: int):
    """Pointer `off` bytes past `p`."""
    return b.gep(p, [ir.Constant(I64, off)], inbounds=True, source_etype=I8)



class WrapperEmitter:
    """The function being emitted (`fn`, builder `b`) and the wrapper's fallback machinery."""

    def __init__(self, module: ir.Module, fn: ir.Function, name: str, pyname: str):
        self.m = module
        self.fn = fn
        self.name = name
        self.pyname = pyname
        self.ssize = SSIZE
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        self._call_fallback: ir.Block | None = None

    def fallback(self, item: int = FALLBACK_ITEM):
        """The wrapper's fallback: item FALLBACK_ITEM of its ``self`` (the CodeOwner tuple its
        callable was made with; None when it has none), a borrowed reference. Kept per
        callable, not in the library: one shared object may be loaded by several functions.
        With RETRY_ITEM: the callable that runs the kernel with strong zeros."""
        owner = self.fn.args[0]
        if LAYOUT["tuple_items"] is not None:
            off = LAYOUT["tuple_items"] + item * (SSIZE.width // 8)
            return self.b.load(byte_gep(self.b, owner, off), typ=PTR)
        return self.call("PyTuple_GetItem", PTR, [PTR, SSIZE],
                         [owner, ir.Constant(SSIZE, item)])

    def name_obj(self):
        """The function's name (a str: item NAME_ITEM of its ``self``), a borrowed reference:
        the messages take it from there, so one wrapper serves functions of any name."""
        return self.fallback(NAME_ITEM)

    def kernel_pointer(self, typ):
        """The kernel's address as a `typ` (a function pointer type), held by item
        KERNEL_ITEM of ``self`` (a capsule) for a wrapper shared by the kernels of one
        signature (python/families.py: made only where LAYOUT has the capsule's offset)."""
        capsule = self.fallback(KERNEL_ITEM)
        return self.b.load(byte_gep(self.b, capsule, LAYOUT["capsule_pointer"]), typ=typ)

    def call_retry(self):
        """PyObject_Vectorcall(retry, original arguments): a new reference or NULL, when
        the CodeOwner has a retry; else NULL with RuntimeError set."""
        b = self.b
        none = extern(self.m, "_Py_NoneStruct")
        fb = self.fallback(RETRY_ITEM)
        have, missing, done = self.block("retry"), self.block("no_retry"), self.block("retried")
        b.cbranch(b.icmp_unsigned("!=", fb, none), have, missing)
        b.position_at_end(have)
        args, nargs, kwnames = self.fn.args[1:4]
        got = self.call("PyObject_Vectorcall", PTR, [PTR, PTR, SSIZE, PTR],
                        [fb, args, nargs, kwnames])
        b.branch(done)
        b.position_at_end(missing)
        exc = b.load(extern(self.m, "PyExc_RuntimeError"), typ=PTR)
        msg = cstr(self.m, f"{self.name}__noretry", "a gradient holds a nan and no kernel "
                   "with strong zeros was given")
        b.call(self.capi("PyErr_SetString", ir.VoidType(), [PTR, PTR]), [exc, msg])
        b.branch(done)
        b.position_at_end(done)
        out = b.phi(PTR)
        out.add_incoming(got, have)
        out.add_incoming(self.null(), missing)
        return out

    def block(self, name: str) -> ir.Block:
        return self.fn.append_basic_block(name)

    def capi(self, name: str, ret, args, var_arg=False):
        return declare(self.m, name, ret, args, var_arg)

    def call(self, name: str, ret, args, values):
        return self.b.call(self.capi(name, ret, args), values)

    def null(self):
        return ir.Constant(PTR, None)

    def entry_alloca(self, typ, name: str = ""):
        """A stack slot allocated at the start of the entry block."""
        b = ir.IRBuilder(self.fn.entry_basic_block)
        b.position_at_start(self.fn.entry_basic_block)
        return b.alloca(typ, name=name)

    def type_of(self, o):
        """Py_TYPE(o) as a borrowed pointer."""
        if LAYOUT["ob_type"] is not None:
            return self.b.load(byte_gep(self.b, o, LAYOUT["ob_type"]), typ=PTR)
        t = self.call("PyObject_Type", PTR, [PTR], [o])  # new reference; types are immortal enough
        self.call("Py_DecRef", ir.VoidType(), [PTR], [t])
        return t

    def is_exact(self, o, type_symbol: str):
        return self.b.icmp_unsigned("==", self.type_of(o), extern(self.m, type_symbol))

    def branch_if_null(self, v, target: ir.Block) -> None:
        """Continue in a new block if `v` is not NULL, else go to `target`."""
        good = self.block("not_null")
        self.b.cbranch(self.b.icmp_unsigned("==", v, self.null()), target, good)
        self.b.position_at_end(good)

    def set_item(self, t, k: int, v) -> None:
        """PyTuple_SET_ITEM(t, k, v) on a new tuple (steals v)."""
        if LAYOUT["tuple_items"] is not None:
            off = LAYOUT["tuple_items"] + k * (SSIZE.width // 8)
            self.b.store(v, byte_gep(self.b, t, off))
        else:
            self.call("PyTuple_SetItem", I32, [PTR, SSIZE, PTR], [t, ir.Constant(SSIZE, k), v])

    def pyerr_check_clear(self, ok_block: ir.Block, bad_block: ir.Block):
        """Branch to bad_block (after clearing the error) if an exception is set, else ok_block."""
        err = self.call("PyErr_Occurred", PTR, [], [])
        clear = self.block("clear_err")
        self.b.cbranch(self.b.icmp_unsigned("!=", err, self.null()), clear, ok_block)
        self.b.position_at_end(clear)
        self.call("PyErr_Clear", ir.VoidType(), [], [])
        self.b.branch(bad_block)

    def mismatch_block(self, label: str, fmt: str, extra=None) -> ir.Block:
        """A block that calls the fallback with the original arguments if it is set, else
        raises TypeError(fmt % (name, *extra(...))) (PyErr_Format: `fmt` starts with "%U",
        the function's name). The builder's position is kept."""
        b, keep = self.b, self.b.block
        blk, raise_blk = self.block(label), self.block(label + "_raise")
        b.position_at_end(blk)
        none = extern(self.m, "_Py_NoneStruct")
        b.cbranch(b.icmp_unsigned("!=", self.fallback(), none), self.call_fallback(), raise_blk)
        b.position_at_end(raise_blk)
        exc = b.load(extern(self.m, "PyExc_TypeError"), typ=PTR)
        vals = [exc, cstr(self.m, f"{self.name}__msg", fmt), self.name_obj()]
        if extra is not None:
            vals += extra()
        b.call(self.capi("PyErr_Format", PTR, [PTR, PTR], var_arg=True), vals)
        b.ret(self.null())
        b.position_at_end(keep)
        return blk

    def call_fallback(self) -> ir.Block:
        if self._call_fallback is None:
            keep = self.b.block
            self._call_fallback = blk = self.block("call_fallback")
            self.b.position_at_end(blk)
            args, nargs, kwnames = self.fn.args[1:4]
            fb = self.fallback()
            self.b.ret(self.call("PyObject_Vectorcall", PTR, [PTR, PTR, SSIZE, PTR],
                                 [fb, args, nargs, kwnames]))
            self.b.position_at_end(keep)
        return self._call_fallback
