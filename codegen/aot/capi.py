"""The C API of an ahead-of-time library: which C functions exist and their parameters.

For every exported Python function (an `Entry`: a function compiled for one signature) the
library has up to three C functions, all returning an `int` status (0 = ok):

    LIB_f(args..., results...)                    the primal
    LIB_f_grad(args..., value, grads...)          value and gradient (single f64 result)
    LIB_f_vjp(args..., cts..., results..., grads...)  vector-Jacobian product (other results)

and, with `pyad compile --vmap` (`Entry.vmap`), batched versions run on native threads by the
runtime's `pyad_batch_run` (docs/aot.md, "Batches"):

    LIB_f_vmap(nbatch, nthreads, bargs..., results...)        the primal of every item
    LIB_f_vmap_grad(nbatch, nthreads, bargs..., value, grads...)   per item (grad mode only)
    LIB_f_vmap_grad_sum(nbatch, nthreads, bargs..., value, grads...)   summed over the batch

Values cross the ABI as follows (T is double, int64_t or bool):
- scalar argument: `T x`; array argument: `const T *x, int64_t x_shape0, ...` (C-contiguous);
- scalar result: `T *out`; array result: `T **out, int64_t out_shape[nd]`: the library
  allocates the data (free it with LIB_free); tuple results are flattened to out0, out1, ...;
- gradients of f64 arguments: `double *grad_x`: one double for a scalar, a caller-provided
  buffer of the argument's shape for an array (overwritten);
- cotangents (vjp) of f64 results: `double ct_out` or `const double *ct_out,
  int64_t ct_out_shape0...`;
- batched arguments (bargs): `const T *x, int64_t x_bstep` for a scalar, `const T *x,
  int64_t x_shape0, ..., int64_t x_bstep` for an array (x_bstep: elements between items);
  batched results, values and gradients are the same C types, holding nbatch items (or
  their sum).

`cheader.py` renders the declarations and `cwrap.py` (`cvmap.py` for the batched ones) the
definitions from this model.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from pyad.ir.nodes import F64, elem_type, is_array, ndim_of
from pyad.aot.sigparse import Signature

C_ELEM = {"f64": "double", "i64": "int64_t", "bool": "bool"}

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Names a C parameter may not take in a header that compiles as C and as C++.
RESERVED = frozenset("""
auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic
_Imaginary _Noreturn _Static_assert _Thread_local alignas alignof and and_eq asm bitand
bitor bool catch char8_t char16_t char32_t class compl concept consteval constexpr constinit
const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export false
friend mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
public reinterpret_cast requires static_assert static_cast template this thread_local throw
true try typeid typename using virtual wchar_t xor xor_eq
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t ptrdiff_t NULL
errno offsetof
""".split())


def is_c_identifier(name: str) -> bool:
    return bool(IDENT.match(name)) and name.isascii()


def mangle(args: tuple[str, ...]) -> str:
    """The suffix that tells apart two signatures of one function: '__' then one token per
    argument type, '_'-separated: f64, i64, bool, and f64a1 for a 1-D f64 array ('void' for
    no arguments). `f(f64[:], i64)` -> `f__f64a1_i64`."""
    toks = [f"{elem_type(t)}a{ndim_of(t)}" if is_array(t) else t for t in args]
    return "__" + ("_".join(toks) if toks else "void")


@dataclass
class Entry:
    """One Python function compiled for one signature."""
    pyname: str                 # the Python function's name
    base: str                   # exported name without the library prefix (alias or mangled)
    sig: Signature
    func: Any                   # pyad.ir.nodes.Func (primal)
    shape: Any                  # result structure (int or nested tuple of result indices)
    location: str               # "model.py:12" (the `def` line)
    gradient: Any = None        # pyad.pipeline.GradientIR, or None
    wrt: tuple[int, ...] = ()   # differentiated params (every f64 and f64-array argument)
    vmap: bool = False          # also export the batched functions (`--vmap`)

    @property
    def param_types(self) -> tuple[str, ...]:
        return tuple(p.type for p in self.func.params)

    @property
    def result_types(self) -> tuple[str, ...]:
        return tuple(r.type for r in self.func.results)

    @property
    def mode(self) -> str | None:
        """'grad' (single f64 result), 'vjp' (other results with a float one) or None (no
        float argument or no float result: nothing to differentiate)."""
        return gradient_mode(self.param_types, self.result_types)


def gradient_mode(params: tuple[str, ...], results: tuple[str, ...]) -> str | None:
    if not any(t == F64 or (is_array(t) and elem_type(t) == F64) for t in params):
        return None
    if results == (F64,):
        return "grad"
    if any(t == F64 or (is_array(t) and elem_type(t) == F64) for t in results):
        return "vjp"
    return None


@dataclass
class Value:
    """One value of the Python function in a C parameter list."""
    role: str            # "arg" | "result" | "value" | "grad" | "ct"
    type: str            # pyad type
    index: int           # param index (arg, grad) or flat result index (result, value, ct)
    name: str            # C name of the scalar / the data pointer
    dims: tuple[str, ...] = ()   # arg/ct arrays: the extent params; result arrays: (shape array,)
    bstep: str | None = None     # a batched argument: its batch step parameter

    def c_params(self) -> list[tuple[str, str]]:
        """(C type, name) pairs of this value, in order."""
        t = self.type
        step = [("int64_t", self.bstep)] if self.bstep else []
        if not is_array(t):
            c = C_ELEM[t]
            if self.role in ("arg", "ct"):
                return [(f"const {c} *", self.name)] + step if step else [(c, self.name)]
            return [(f"{c} *", self.name)]
        c = C_ELEM[elem_type(t)]
        nd = ndim_of(t)
        if self.role in ("arg", "ct"):
            return [(f"const {c} *", self.name)] + [("int64_t", d) for d in self.dims] + step
        if self.role == "result":
            return [(f"{c} **", self.name), ("int64_t", f"{self.dims[0]}[{nd}]")]
        return [(f"{c} *", self.name)]  # gradient buffer of an array argument


BATCHED = ("vmap", "vmap_grad", "vmap_grad_sum")


@dataclass
class CFunction:
    symbol: str
    kind: str                       # "primal" | "grad" | "vjp" | one of BATCHED
    entry: Entry
    values: list[Value] = field(default_factory=list)
    batch: tuple[str, str] = ()     # batched: the names of the batch size and thread count

    @property
    def batched(self) -> bool:
        return self.kind in BATCHED

    def params(self) -> list[tuple[str, str]]:
        """(C type, name) pairs of the parameters, in order."""
        lead = [("int64_t", self.batch[0]), ("int32_t", self.batch[1])] if self.batch else []
        return lead + [p for v in self.values for p in v.c_params()]


class _Names:
    def __init__(self) -> None:
        self.taken: set[str] = set()

    def claim(self, wanted: str) -> str:
        name = wanted if is_c_identifier(wanted) and wanted not in RESERVED else None
        if name is None:
            name = wanted + "_" if is_c_identifier(wanted + "_") else "arg"
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name


@dataclass
class EntryNames:
    """C names of every value of an entry (the same in its primal, grad and vjp)."""
    args: list[Value]
    results: list[Value]
    value: Value | None
    grads: list[Value]
    cts: list[Value]
    bargs: list[Value] = field(default_factory=list)   # the args of the batched functions
    batch: tuple[str, str] = ()                         # their batch size, thread count


def entry_names(e: Entry) -> EntryNames:
    names = _Names()
    py = list(e.func.arg_names) or [p.name for p in e.func.params]
    args: list[Value] = []
    for i, (pname, t) in enumerate(zip(py, e.param_types)):
        n = names.claim(pname if is_c_identifier(pname) else f"arg{i}")
        args.append(Value("arg", t, i, n))
    for v in args:
        if is_array(v.type):
            v.dims = tuple(names.claim(f"{v.name}_shape{k}") for k in range(ndim_of(v.type)))
    rtypes = e.result_types
    results = []
    for j, t in enumerate(rtypes):
        n = names.claim("out" if len(rtypes) == 1 else f"out{j}")
        results.append(Value("result", t, j, n))
    for v in results:
        if is_array(v.type):
            v.dims = (names.claim(f"{v.name}_shape"),)
    value = None
    if e.mode == "grad":
        value = Value("value", F64, 0, names.claim("value"))
    grads = [Value("grad", args[i].type, i, names.claim(f"grad_{args[i].name}"), args[i].dims)
             for i in e.wrt]
    cts = []
    if e.mode == "vjp":
        for v in results:
            if v.type == F64 or (is_array(v.type) and elem_type(v.type) == F64):
                c = Value("ct", v.type, v.index, names.claim(f"ct_{v.name}"))
                if is_array(v.type):
                    c.dims = tuple(names.claim(f"{c.name}_shape{k}")
                                   for k in range(ndim_of(v.type)))
                cts.append(c)
    # claimed last, so that --vmap leaves the other functions' names as they are
    bargs = [replace(v, bstep=names.claim(f"{v.name}_bstep")) for v in args] if e.vmap else []
    batch = (names.claim("nbatch"), names.claim("nthreads")) if e.vmap else ()
    return EntryNames(args, results, value, grads, cts, bargs, batch)


def functions(lib: str, entries: list[Entry]) -> list[CFunction]:
    """Every exported C function of the library, in order."""
    out = []
    for e in entries:
        n = entry_names(e)
        out.append(CFunction(f"{lib}_{e.base}", "primal", e, n.args + n.results))
        if e.mode == "grad":
            out.append(CFunction(f"{lib}_{e.base}_grad", "grad", e, n.args + [n.value] + n.grads))
        elif e.mode == "vjp":
            out.append(CFunction(f"{lib}_{e.base}_vjp", "vjp", e,
                                 n.args + n.cts + n.results + n.grads))
        if e.vmap:
            out.append(CFunction(f"{lib}_{e.base}_vmap", "vmap", e, n.bargs + n.results,
                                 n.batch))
            if e.mode == "grad":
                for kind in ("vmap_grad", "vmap_grad_sum"):
                    out.append(CFunction(f"{lib}_{e.base}_{kind}", kind, e,
                                         n.bargs + [n.value] + n.grads, n.batch))
    return out


def helper_symbols(lib: str) -> dict[str, str]:
    """The library-wide exported functions besides the per-function ones."""
    return {f"{lib}_last_error": "the last error message", f"{lib}_free": "free an array result"}


def exported_symbols(lib: str, entries: list[Entry]) -> list[str]:
    return list(helper_symbols(lib)) + [f.symbol for f in functions(lib, entries)]
