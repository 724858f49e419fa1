"""The C header of an ahead-of-time library (`NAME.h`): status codes, the ABI contract and
one commented declaration per exported function. It compiles as C (C99 and later) and C++.

`cdef(header_text)` strips the preprocessor parts so that the declarations can be given to
`cffi.FFI().cdef` (the tests call AOT libraries that way).
"""
from __future__ import annotations

from pyad.ir.nodes import F64, elem_type, is_array, ndim_of
from pyad.aot.sigparse import spell

from .. import abi
from .capi import C_ELEM, CFunction, Entry, Value, functions

# pyad_error_kind (runtime/pyad_rt.h) -> (suffix of the status constant, meaning)
STATUS = [
    ("OK", "success"),
    ("ERR_ZERO_DIVISION", "division or modulo by zero (Python: ZeroDivisionError)"),
    ("ERR_VALUE", "invalid value or shape (ValueError): shapes that do not broadcast, a "
                  "cotangent of the wrong shape, a negative extent or NULL array passed in, "
                  "int(nan), range() with step 0"),
    ("ERR_INDEX", "index out of bounds (Python: IndexError)"),
    ("ERR_MEMORY", "allocation failure (Python: MemoryError)"),
    ("ERR_RECURSION", "recursion limit (Python: RecursionError)"),
    ("ERR_OVERFLOW", "numeric overflow, e.g. int(inf) (Python: OverflowError)"),
    ("ERR_RUNTIME", "any other run-time error (Python: RuntimeError)"),
    ("ERR_LINALG", "linear algebra failure: a singular matrix, a matrix that is not positive "
                   "definite (Python: numpy.linalg.LinAlgError)"),
    ("ERR_ASSERTION", "an `assert` of the function failed (Python: AssertionError)"),
    ("ERR_TYPE", "the function's `raise TypeError(...)` (Python: TypeError)"),
    ("ERR_NOT_IMPLEMENTED", "the function's `raise NotImplementedError(...)`"),
    ("ERR_ARITHMETIC", "the function's `raise ArithmeticError(...)`"),
    ("ERR_FLOATING_POINT", "the function's `raise FloatingPointError(...)`"),
    ("ERR_LOOKUP", "the function's `raise LookupError(...)`"),
    ("ERR_KEY", "the function's `raise KeyError(...)`"),
    ("ERR_STRONG_ZEROS", "never returned by a library function (Python's gradient kernels "
                         "use it to ask for their version with strong zeros)"),
]
assert len(STATUS) == len(abi.ERROR_KINDS)


def _shape_text(v: Value) -> str:
    return "[" + "][".join(v.dims) + "]"


def _elem(t: str) -> str:
    return C_ELEM[elem_type(t)] if is_array(t) else C_ELEM[t]


def _value_doc(v: Value, fn: CFunction, lib: str) -> list[str]:
    t, e = v.type, fn.entry
    if fn.batched:
        return _batched_doc(v, fn, lib)
    if v.role == "arg":
        if is_array(t):
            return [f"{v.name}: {spell(t)} argument `{e.func.arg_names[v.index]}`, "
                    f"C-contiguous {_elem(t)}{_shape_text(v)}."]
        return [f"{v.name}: {spell(t)} argument `{e.func.arg_names[v.index]}`."]
    if v.role == "result":
        which = "the result" if len(e.result_types) == 1 else f"result {v.index}"
        if is_array(t):
            nd = ndim_of(t)
            ext = f"{v.dims[0]}[0] its extent" if nd == 1 else \
                f"{v.dims[0]}[0..{nd - 1}] its extents"
            return [f"{v.name}, {v.dims[0]}: {which} ({spell(t)}). *{v.name} receives a new "
                    f"C-contiguous {_elem(t)} array",
                    f"  allocated by the library (release it with {lib}_free), {ext}.",
                    f"  Pass {v.name} = NULL to get the extent{'s' if nd > 1 else ''} only, "
                    f"{v.dims[0]} = NULL if not needed."]
        return [f"{v.name}: receives {which} ({spell(t)}); may be NULL."]
    if v.role == "value":
        return [f"{v.name}: receives the value of {e.pyname}; may be NULL."]
    if v.role == "grad":
        pname = e.func.arg_names[v.index]
        if is_array(t):
            return [f"{v.name}: caller-provided double{_shape_text(v)} (the shape of "
                    f"`{pname}`), overwritten with the gradient",
                    f"  with respect to `{pname}`; must not overlap any other argument."]
        return [f"{v.name}: receives the derivative with respect to `{pname}`; may be NULL."]
    # cotangent
    res = next(r for r in fn.values if r.role == "result" and r.index == v.index)
    if is_array(t):
        return [f"{v.name}: cotangent of {res.name}, C-contiguous double{_shape_text(v)}; "
                f"its extents must equal",
                f"  those of {res.name} (else {lib.upper()}_ERR_VALUE)."]
    return [f"{v.name}: cotangent (weight) of {res.name}."]


def _batched_doc(v: Value, fn: CFunction, lib: str) -> list[str]:
    t, e, n = v.type, fn.entry, fn.batch[0]
    total = fn.kind == "vmap_grad_sum"
    if v.role == "arg":
        what = f"{v.name}, {v.bstep}: {spell(t)} argument `{e.func.arg_names[v.index]}`"
        if is_array(t):
            return [f"{what}; item i's C-contiguous {_elem(t)}{_shape_text(v)}",
                    f"  starts at {v.name} + i * {v.bstep} ({v.bstep} 0: the same array for "
                    f"every item)."]
        return [f"{what}; item i's is {v.name}[i * {v.bstep}]",
                f"  ({v.bstep} 0: the same value for every item)."]
    if v.role == "result":
        which = "the result" if len(e.result_types) == 1 else f"result {v.index}"
        if is_array(t):
            nd = ndim_of(t)
            ext = f"{v.dims[0]}[0]" if nd == 1 else f"{v.dims[0]}[0..{nd - 1}]"
            return [f"{v.name}, {v.dims[0]}: {which} ({spell(t)}) of every item. *{v.name} "
                    f"receives a new array",
                    f"  of {n} C-contiguous {_elem(t)} blocks of extents {ext} (every item's "
                    f"must be the same;",
                    f"  release it with {lib}_free). {v.name} = NULL: not kept, the extents "
                    f"(item 0's) still are; {v.dims[0]} may be NULL."]
        return [f"{v.name}: receives {which} ({spell(t)}) of every item, {v.name}[{n}]; "
                "may be NULL."]
    if v.role == "value":
        if total:
            return [f"{v.name}: receives the sum of the values of {e.pyname}; may be NULL."]
        return [f"{v.name}: receives the value of {e.pyname} of every item, {v.name}[{n}]; "
                "may be NULL."]
    pname = e.func.arg_names[v.index]
    if is_array(t) and total:
        return [f"{v.name}: caller-provided double{_shape_text(v)} (the shape of `{pname}`), "
                f"overwritten with the sum",
                f"  of the items' gradients with respect to `{pname}`."]
    if is_array(t):
        return [f"{v.name}: caller-provided double[{n}]{_shape_text(v)}, overwritten with "
                f"each item's gradient",
                f"  with respect to `{pname}`; must not overlap any other argument."]
    if total:
        return [f"{v.name}: receives the sum of the derivatives with respect to `{pname}`; "
                "may be NULL."]
    return [f"{v.name}: receives each item's derivative with respect to `{pname}`, "
            f"{v.name}[{n}]; may be NULL."]


def _batched_head(fn: CFunction, call: str) -> list[str]:
    n, t = fn.batch
    what = {"vmap": f"{call} for each of {n} items",
            "vmap_grad": f"Value and gradient of {call} for each of {n} items",
            "vmap_grad_sum": f"Value and gradient of {call} summed over {n} items (added "
                             "in item order)"}[fn.kind]
    return [f"{what},",
            f"on {t} threads (<= 0: $PYAD_NUM_THREADS, else the number of CPUs). Each item is "
            "computed bit for bit",
            f"as the non-batched function computes it. {n} must be at least 1."]


def _comment(fn: CFunction, lib: str) -> list[str]:
    e = fn.entry
    call = f"{e.pyname}({', '.join(e.func.arg_names)})"
    lines: list[str]
    if fn.batched:
        lines = _batched_head(fn, call)
    elif fn.kind == "primal":
        lines = [f"{call} -> {spell(e.sig.result)}: compiled from {e.location}, "
                 f"signature {e.sig}."]
    elif fn.kind == "grad":
        wrt = ", ".join(f"`{e.func.arg_names[i]}`" for i in e.wrt)
        lines = [f"Value and gradient of {call} in one call (reverse mode), with respect to "
                 f"{wrt}."]
    else:
        cts = [v for v in fn.values if v.role == "ct"]
        terms = " + ".join(f"<{c.name}, {r.name}>" for c in cts for r in fn.values
                           if r.role == "result" and r.index == c.index)
        wrt = ", ".join(f"`{e.func.arg_names[i]}`" for i in e.wrt)
        lines = [f"Vector-Jacobian product of {call}: computes the results and the gradient "
                 f"of",
                 f"{terms} with respect to {wrt}, in one call (reverse mode)."]
    for v in fn.values:
        lines += _value_doc(v, fn, lib)
    if fn.kind not in ("primal", "vmap") and any(
            t != F64 and not (is_array(t) and elem_type(t) == F64) for t in e.param_types):
        lines.append("int and bool arguments have no gradient.")
    if fn.batched:
        lines.append(f"Returns {lib.upper()}_OK (0), or the status of the first failing item "
                     f"({lib}_last_error() says why and")
        lines.append("names the item; no array was returned; the buffers may have been partly "
                     "written).")
        return lines
    lines.append(f"Returns {lib.upper()}_OK (0), or an error status ({lib}_last_error() "
                 "says why; no result was returned).")
    return lines


def _wrap(fn: CFunction, width: int = 100) -> str:
    """The prototype, its parameters wrapped under the opening parenthesis."""
    head = f"int {fn.symbol}("
    params = [f"{t}{'' if t.endswith('*') else ' '}{n}" for t, n in fn.params()] or ["void"]
    lines, cur = [], head
    for k, p in enumerate(params):
        piece = p + (", " if k + 1 < len(params) else ")")
        if len(cur) + len(piece.rstrip()) > width and cur.strip() != head.strip():
            lines.append(cur.rstrip())
            cur = " " * len(head)
        cur += piece
    lines.append(cur)
    return "\n".join(lines)


def _block_comment(lines: list[str], indent: str = "") -> str:
    body = "\n".join(f"{indent} * {ln}".rstrip() for ln in lines[1:])
    first = f"{indent}/* {lines[0]}"
    return first + ("\n" + body if body else "") + " */"


def render(lib: str, entries: list[Entry], *, source: str, command: str) -> str:
    """The text of `lib.h`."""
    up = lib.upper()
    guard = f"{up}_H_INCLUDED"
    fns = functions(lib, entries)
    out: list[str] = []
    w = out.append
    w(f"/* {lib}.h: C interface of lib{lib}, generated by `pyad compile` from {source}.")
    w(" * Do not edit; regenerate with:")
    w(f" *   {command}")
    w(" *")
    w(" * ABI contract (docs/aot.md in the pyad sources has the details):")
    w(" * - Every function returns an int status: 0 on success, or one of the codes below;")
    w(f" *   {lib}_last_error() then returns the message of the failure (per thread). A failed")
    w(" *   call returns no result and leaves nothing to free; gradient buffers may have been")
    w(" *   partly written.")
    w(" * - Arrays are C-contiguous (row-major): a data pointer followed by one int64_t extent per")
    w(" *   axis. Inputs are never modified. NULL is allowed for an array with no element.")
    w(" * - Array results are allocated by the library (malloc) and returned through a pointer;")
    w(f" *   release each with {lib}_free. Their extents are written to a caller array.")
    w(" * - Gradients of array arguments go to caller-provided buffers of the argument's shape,")
    w(" *   which are overwritten (they must not overlap another argument).")
    w(" * - Calls are thread-safe and reentrant: each call has its own context on the stack.")
    batched = any(fn.batched for fn in fns)
    if batched:
        w(" * - The _vmap functions (pyad compile --vmap) run a batch of items on native threads;")
        w(" *   each item is independent, computed as the non-batched function computes it.")
    w(" * - No Python at run time; link with -l" + lib + " (shared) or lib" + lib
      + ".a -lm -pthread (static).")
    w(" */")
    w(f"#ifndef {guard}")
    w(f"#define {guard}")
    w("")
    w("#include <stdint.h>")
    w("#ifndef __cplusplus")
    w("#include <stdbool.h>")
    w("#endif")
    w("")
    w("#ifdef __cplusplus")
    w('extern "C" {')
    w("#endif")
    w("")
    w("/* Status codes (the pyad runtime's pyad_error_kind). */")
    w("enum {")
    width = max(len(f"{up}_{suffix} = {k},") for k, (suffix, _) in enumerate(STATUS))
    for k, (suffix, meaning) in enumerate(STATUS):
        item = f"{up}_{suffix} = {k}" + ("," if k + 1 < len(STATUS) else "")
        w(f"    {item:<{width}}  /* {meaning} */")
    w("};")
    w("")
    w("/* The message of the last failed call of this library on the calling thread, e.g.")
    w(' * "IndexError: index 10 is out of bounds for axis 0 with size 10 (line 7 of model.py)";')
    w(" * \"\" if no call has failed on this thread. A successful call does not clear it. The")
    w(" * string is owned by the library and valid until the next failing call on this thread. */")
    w(f"const char *{lib}_last_error(void);")
    w("")
    w("/* Release an array returned by a function of this library (NULL is ignored). */")
    w(f"void {lib}_free(void *data);")
    for fn in fns:
        w("")
        w(_block_comment(_comment(fn, lib)))
        w(_wrap(fn) + ";")
    w("")
    w("#ifdef __cplusplus")
    w("}")
    w("#endif")
    w(f"#endif /* {guard} */")
    return "\n".join(out) + "\n"


def cdef(header: str) -> str:
    """The declarations of a generated header, for `cffi.FFI().cdef` (no preprocessor lines,
    no C++ guard)."""
    out, skip = [], 0
    for line in header.splitlines():
        s = line.strip()
        if s.startswith("#ifdef __cplusplus"):
            skip = 1
            continue
        if skip:
            if s.startswith("#endif"):
                skip = 0
            continue
        if s.startswith("#"):
            continue
        out.append(line)
    return "\n".join(out)
