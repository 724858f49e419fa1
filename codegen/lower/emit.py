"""IR Func -> LLVM function following the kernel ABI of `abi.py`.

Primitives are lowered from the op table's `lower` data: ("inst", ...) an LLVM instruction,
("cmp", sym) a comparison, ("intrinsic", name) an LLVM intrinsic, ("inline", name) a math
kernel of `vecmath.py` (inlined: loops around it vectorize), ("libm", name) and
("runtime", name) external calls, ("custom",) a function in `custom.py`, ("kernel", ...)
a routine of the runtime (`linalg.py`, and `matmul.py` for the matrix product), ("call",)
a call of another generated function (`lower_call.py`).

The kernels of one LLVM module share a :class:`ModuleState` (the functions emitted for the
natively called callees, the call-depth limit they check): it is passed to every emitter
explicitly, never stored on the llvmlite Module.

A kernel may pack its trailing `pack_saved` results (possibly none) into a freshly allocated pullback struct (the
forward half of `pullback`) or unpack its leading params from one (the backward half).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from llvmlite import ir

from pyad.errors import PyadInternalError
from pyad.ir.counting import range_bounds
from pyad.ir.nodes import BOOL, F64, Callee, Func, If, Loc, Op, Var, While, is_array, walk
from pyad.ir.ops import OPS

from .. import abi
from . import array as lower_array
from . import call as lower_call
from . import custom as lower_custom
from . import vecmath
from ..abi import from_mem, to_mem
from .array import ARRAY_LOWERINGS
from .custom import CUSTOM
from .linalg import LINALG_LOWERINGS
from .matmul import MATMUL_LOWERINGS

LOWERINGS = {**CUSTOM, **ARRAY_LOWERINGS, **LINALG_LOWERINGS, **MATMUL_LOWERINGS}


@dataclass
class ModuleState:
    """What the kernels of one LLVM module share while it is emitted.

    `max_depth` is the native call depth past which a callee raises RecursionError (data
    from the pipeline: `pyad.pipeline.max_call_depth()`; only needed when the module has
    callees). `callees` maps (callee, 'primal' | 'fwd' | 'bwd') to its LLVM function, emitted
    once per module on first use."""

    module: ir.Module
    max_depth: int | None = None
    callees: dict[tuple[Callee, str], ir.Function] = field(default_factory=dict)


class KernelEmitter:
    def __init__(self, state: ModuleState | ir.Module, func: Func, name: str, *,
                 fastmath: bool = False, boundscheck: bool = True,
                 pack_saved: int | None = None, unpack_saved: int | None = None,
                 callee: bool = False) -> None:
        if isinstance(state, ir.Module):
            state = ModuleState(state)
        self.state = state
        self.module = module = state.module
        self.func = func
        self.boundscheck = boundscheck
        self.fastmath = fastmath
        self.flags = ("fast",) if fastmath else ()  # strict IEEE: bit-equal to CPython, fused == split
        self.callee = callee  # a natively called function: takes its call depth after ctx
        self.packs, self.unpacks = pack_saved is not None, unpack_saved is not None
        self.pack_saved = pack_saved or 0
        self.unpack_saved = unpack_saved or 0
        params = func.params[self.unpack_saved:]
        n_out = len(func.results) - self.pack_saved + self.packs
        arg_types = [abi.PTR] * (1 + self.unpacks) + [abi.I64] * callee \
            + [abi.arg_type(p.type) for p in params] + [abi.PTR] * n_out
        self.fn = ir.Function(module, ir.FunctionType(abi.I32, arg_types), name=name)
        self.fn.attributes.add("nounwind")
        for a in self.fn.args[1 + self.unpacks + callee + len(params):]:
            a.add_attribute("noalias")
        self.ctx = self.fn.args[0]
        self.depth = self.fn.args[1] if callee else abi.I64(0)
        self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
        self.values: dict[str, ir.Value] = {}
        self.n_strings = 0
        self.raising: dict[tuple, ir.Block] = {}  # an error -> the block raising it (check)
        self.strings: dict[str, ir.GlobalVariable] = {}
        self.reserved = 0  # tape bytes made room for by a run's one check (custom.reserve)
        # in a loop that made room for all its trips (while_): the trip's tape top, and
        # the bytes this trip pushed so far
        self.tape_top: ir.Value | None = None
        self.tape_off = 0

    # ------------------------------------------------------------------ entry
    def emit(self) -> ir.Function:
        f, b = self.func, self.b
        i = 1
        if self.unpacks:
            pb = self.fn.args[1]
            saved = f.params[:self.unpack_saved]
            st = saved_struct(saved)
            for k, v in enumerate(saved):
                p = b.gep(pb, [abi.I32(0), abi.I32(SAVED_FIELD0 + k)], inbounds=True,
                          source_etype=st)
                self.values[v.name] = from_mem(b, b.load(p, typ=abi.mem_type(v.type)), v.type)
            if _pushes(f):  # re-runs checkpointed segments: works on a copy of the tape
                copy = self.extern("pyad_tape_copy_from_pullback", abi.I32, [abi.PTR, abi.PTR])
                status = b.call(copy, [self.ctx, pb])
                with b.if_then(b.icmp_signed("!=", status, abi.I32(0)), likely=False):
                    b.ret(status)
            else:
                # pop from the forward sweep's tape without consuming it: only ctx.tape_top
                # moves (ctx.tape_base stays NULL, so the wrapper does not free the
                # pullback's tape)
                top = b.load(b.gep(pb, [abi.I32(0), abi.I32(1)], inbounds=True,
                                   source_etype=st), typ=abi.PTR)
                b.store(top, b.gep(self.ctx, [abi.I32(0), abi.I32(abi.CTX_TAPE_TOP)],
                                   inbounds=True, source_etype=abi.CTX))
            i = 2
        if self.callee:
            lower_call.check_depth(self)
            i = 2
        for p in f.params[self.unpack_saved:]:
            arg = self.fn.args[i]
            if is_array(p.type):  # arrays come by pointer to their descriptor
                arg.add_attribute("noalias")
                arg = b.load(arg, typ=abi.mem_type(p.type))
                if not self.callee:  # C-contiguous, from Python or C (a callee's: any view)
                    arg = lower_array.c_contiguous(b, arg)
            self.values[p.name] = arg
            i += 1
        self.block(f.block.body)
        results = [self.values[r.name] for r in f.results]
        n_plain = len(results) - self.pack_saved
        for k in range(n_plain):
            b.store(to_mem(b, results[k], f.results[k].type), self.fn.args[i + k])
        if self.packs:
            saved = f.results[n_plain:]
            st = saved_struct(saved)
            null = ir.Constant(abi.PTR, None)
            size = b.ptrtoint(b.gep(null, [abi.I32(1)], source_etype=st), abi.I64)
            alloc = self.extern("pyad_pullback_alloc", abi.PTR, [abi.I64])
            pb = b.call(alloc, [size])
            with b.if_then(b.icmp_unsigned("==", pb, ir.Constant(abi.PTR, None)), likely=False):
                self.fail(abi.ERR_MEMORY, "out of memory allocating a pullback", None)
            for k, v in enumerate(saved):
                p = b.gep(pb, [abi.I32(0), abi.I32(SAVED_FIELD0 + k)], inbounds=True,
                          source_etype=st)
                b.store(to_mem(b, results[n_plain + k], v.type), p)
            move = self.extern("pyad_tape_move_to_pullback", ir.VoidType(), [abi.PTR, abi.PTR])
            b.call(move, [self.ctx, pb])
            b.store(pb, self.fn.args[i + n_plain])
        b.ret(abi.I32(0))
        return self.fn

    # ------------------------------------------------------------------ statements
    def block(self, body) -> None:
        for i, s in enumerate(body):
            if isinstance(s, Op):
                if s.op == "push" and not self.reserved and self.tape_top is None:
                    self.reserved = lower_custom.reserve(self, _push_run(body, i))
                self.op(s)
            elif isinstance(s, If):
                self.if_(s)
            else:
                self.while_(s)

    def while_(self, s: While) -> None:
        """header: phis of the carried values; cond block; body block; back edge. A counted
        loop whose trips push a fixed number of bytes (`_tape_run`) makes room for all its
        trips before it and keeps the tape's top in a register, so that its pushes are
        stores at known offsets: the loop vectorizes as one without pushes would (each push
        read and wrote the context's top, which the tape's stores may alias). A loop whose
        trips pop a fixed number of bytes keeps the top in a register too (no room needed):
        its pops are loads at known offsets below it."""
        b = self.b
        per_trip, step, top0 = _tape_run(s, "push"), self._constant_step(s), None
        if per_trip and step:
            top0 = self._reserve_trips(s, per_trip, step)
        elif _tape_run(s, "pop"):   # the trips pop what the forward trips pushed
            per_trip = -_tape_run(s, "pop")
            top0 = b.load(lower_custom.tape_field(self, abi.CTX_TAPE_TOP), typ=abi.PTR)
        pre = b.block
        header = self.fn.append_basic_block("while.cond")
        body_bb = self.fn.append_basic_block("while.body")
        exit_bb = self.fn.append_basic_block("while.end")
        inits = [self.values[v.name] for v in s.inits]
        b.branch(header)
        b.position_at_end(header)
        phis = [b.phi(abi.value_type(o.type), name=o.name) for o in s.outs]
        for phi, v in zip(phis, inits):
            phi.add_incoming(v, pre)
        top = None if top0 is None else b.phi(abi.PTR, name="tape.top")
        if top is not None:
            top.add_incoming(top0, pre)
        for p, phi in zip(s.cond.params, phis):
            self.values[p.name] = phi
        self.block(s.cond.body)
        b.cbranch(self.values[s.cond.results[0].name], body_bb, exit_bb)
        b.position_at_end(body_bb)
        for p, phi in zip(s.body.params, phis):
            self.values[p.name] = phi
        outer = self.tape_top, self.tape_off
        self.tape_top, self.tape_off = top, 0
        self.block(s.body.body)
        self.tape_top, self.tape_off = outer
        latch = b.block
        for phi, r in zip(phis, s.body.results):
            phi.add_incoming(self.values[r.name], latch)
        if top is not None:
            top.add_incoming(b.gep(top, [abi.I64(per_trip)], inbounds=True,
                                   source_etype=abi.I8), latch)
        back = b.branch(header)
        if s.unrolled:  # jam.py ran its trips side by side: neither unrolled nor vectorized
            back.set_metadata("llvm.loop", self._loop_id(("llvm.loop.unroll.disable",),
                                                         ("llvm.loop.vectorize.width", 1)))
        b.position_at_end(exit_bb)
        for o, phi in zip(s.outs, phis):
            self.values[o.name] = phi
        if top is not None:
            b.store(top, lower_custom.tape_field(self, abi.CTX_TAPE_TOP))

    def _constant_step(self, s: While) -> int:
        """The step of a counted loop `s` when it is a constant > 0 (else 0)."""
        bounds = range_bounds(s)
        step = None if bounds is None else bounds[3]
        if isinstance(step, Var):
            value = self.values.get(step.name)
            step = value.constant if isinstance(value, ir.Constant) else None
        return step if isinstance(step, int) and step > 0 else 0

    def _reserve_trips(self, s: While, per_trip: int, step: int) -> ir.Value:
        """Room on the tape for every trip of the counted loop `s` (`per_trip` bytes each,
        the counter stepping by `step`); the tape's top before it."""
        b = self.b
        _, lo, hi, _ = range_bounds(s)
        span = b.ssub_with_overflow(self.values[hi.name], self.values[lo.name])
        d = b.extract_value(span, 0)
        trips = b.add(b.sdiv(b.sub(d, abi.I64(1)), abi.I64(step)), abi.I64(1))
        trips = b.select(b.icmp_signed(">", d, abi.I64(0)), trips, abi.I64(0))
        size = b.smul_with_overflow(trips, abi.I64(per_trip))
        # a count past the 64-bit range asks for all of it: the runtime's MemoryError
        wraps = b.or_(b.extract_value(span, 1), b.extract_value(size, 1))
        lower_custom.reserve(self, b.select(wraps, abi.I64(2 ** 63 - 1),
                                            b.extract_value(size, 0)))
        return b.load(lower_custom.tape_field(self, abi.CTX_TAPE_TOP), typ=abi.PTR)

    def _loop_id(self, *props: tuple) -> ir.MDValue:
        """A new loop ID with properties `props` (name, then i32 operands), for the loops
        jam.py made: LLVM's unroller and vectorizer would undo their point (the vectorizer,
        when -force-ordered-reductions was set, turned the lanes' float chains into ordered
        reductions over gathered elements: W5's loop spelling 1.05x, 1.3x with
        boundscheck=False; kept as a guard). LLVM wants a distinct node
        per loop, whose first operand is the node itself."""
        m = self.module
        nodes = [m.add_metadata([ir.MetaDataString(m, p[0])]
                                + [ir.Constant(ir.IntType(32), v) for v in p[1:]])
                 for p in props]
        node = ir.MDValue(m, nodes, name=str(len(m.metadata)))
        node.operands = (node, *nodes)
        return node

    def op(self, s: Op) -> None:
        out = s.outs[0] if s.outs else None
        row = OPS[s.op]
        if s.op == "const":
            self.values[out.name] = const(out.type, s.attrs[0])
            return
        if row.lower[0] == "call":
            for o, v in zip(s.outs, lower_call.call(self, s)):
                self.values[o.name] = v
            return
        if not s.outs:  # effects: push, raise_if, store, accum
            LOWERINGS[s.op](self, s, None, *(self.values[a.name] for a in s.args))
            return
        args = [self.values[a.name] for a in s.args]
        kind = row.lower[0]
        b = self.b
        if kind == "inst":
            spec = row.lower[1]
            if spec == "select":
                r = b.select(*args)
            else:
                method = spec[out.type]
                fl = {"flags": self.flags} if method.startswith("f") else {}
                r = getattr(b, method)(*args, **fl)
        elif kind == "cmp":
            sym, t = row.lower[1], s.args[0].type
            if t == F64:
                r = b.fcmp_ordered(sym, *args) if sym != "!=" else b.fcmp_unordered(sym, *args)
            elif t == BOOL:
                r = b.icmp_unsigned(sym, *args)
            else:
                r = b.icmp_signed(sym, *args)
        elif kind == "intrinsic" and s.op == "pow" and (k := _whole(args[1])) is not None:
            fn = self.extern("llvm.powi.f64.i32", abi.F64, [abi.F64, abi.I32])
            r = b.call(fn, [args[0], ir.Constant(abi.I32, k)], fastmath=self.flags)
        elif kind == "intrinsic":
            fn = self.extern(f"{row.lower[1]}.f64", abi.F64, [abi.F64] * len(args))
            r = b.call(fn, args, fastmath=self.flags)
        elif kind == "inline":
            r = b.call(vecmath.function(self.module, row.lower[1]), args)
        elif kind in ("libm", "runtime"):
            fn = self.extern(row.lower[1], abi.F64, [abi.F64] * len(args))
            r = b.call(fn, args)
        elif kind in ("custom", "kernel"):
            r = LOWERINGS[s.op](self, s, out.type, *args)
        else:
            raise AssertionError(f"unknown lowering {row.lower!r} for {s.op}")
        self.values[out.name] = r

    def if_(self, s: If) -> None:
        b = self.b
        then_bb = self.fn.append_basic_block("then")
        else_bb = self.fn.append_basic_block("else")
        merge_bb = self.fn.append_basic_block("endif")
        b.cbranch(self.values[s.cond.name], then_bb, else_bb)
        incoming = []
        for bb, blk in ((then_bb, s.then), (else_bb, s.orelse)):
            b.position_at_end(bb)
            self.block(blk.body)
            incoming.append((b.block, [self.values[r.name] for r in blk.results]))
            b.branch(merge_bb)
        b.position_at_end(merge_bb)
        for k, o in enumerate(s.outs):
            phi = b.phi(abi.value_type(o.type), name=o.name)
            for pred, vals in incoming:
                phi.add_incoming(vals[k], pred)
            self.values[o.name] = phi

    # ------------------------------------------------------------------ helpers for lowerings
    def callee_function(self, callee: Callee, kind: str) -> ir.Function:
        """The LLVM function of `callee`'s `kind` half ('primal', 'fwd', 'bwd') in this
        module, emitted on first use. The halves are the Funcs the pipeline made
        (`callee.gradient`); codegen never differentiates."""
        key = (callee, kind)
        fn = self.state.callees.get(key)
        if fn is None:
            if kind == "primal":
                func = callee.func
            elif callee.gradient is None:
                raise PyadInternalError(f"internal compiler error: no gradient for the callee "
                                        f"@{callee.name} (the pipeline makes them)")
            else:
                func = callee.gradient[0 if kind == "fwd" else 1]
            name = self.module.get_unique_name(f"{callee.name}.{kind}")
            sub = KernelEmitter(self.state, func, name, fastmath=self.fastmath,
                                boundscheck=self.boundscheck, callee=True)
            sub.fn.linkage = "internal"
            fn = self.state.callees[key] = sub.fn  # before emitting: the body may call itself
            sub.emit()
        return fn

    def extern(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name=name)
        return fn

    def entry_alloca(self, t: ir.Type) -> ir.Value:
        """A stack slot allocated once at the function's entry (not per loop trip)."""
        b, block = self.b, self.b.block
        b.position_at_start(self.fn.entry_basic_block)
        slot = b.alloca(t)
        b.position_at_end(block)
        return slot

    def check(self, bad: ir.Value, kind: int, message: str, s: Op) -> None:
        """Raise error `kind` (abi.ERROR_KINDS) when `bad` is true; continue otherwise. The
        checks of one error (kind, message and line) share the block that raises it."""
        b = self.b
        key = (kind, message, s.loc.line if s.loc else 0, self.where(s.loc))
        raising = self.raising.get(key)
        if raising is None:
            here = b.block
            raising = self.raising[key] = self.fn.append_basic_block("raise")
            b.position_at_end(raising)
            self.fail(kind, message, s.loc)
            b.position_at_end(here)
        go_on = self.fn.append_basic_block("ok")
        b.cbranch(bad, raising, go_on).set_weights([1, 99])
        b.position_at_end(go_on)

    def where(self, loc: Loc | None) -> str:
        """` (line N of file.py)` for an error message at `loc`."""
        if loc is None or not loc.line:
            return ""
        return f" (line {loc.line} of {(loc.file or self.func.filename).rsplit('/', 1)[-1]})"

    def cstring(self, text: str) -> ir.GlobalVariable:
        """A private constant holding `text` (one per distinct text in a kernel)."""
        if text in self.strings:
            return self.strings[text]
        data = bytearray(text.encode() + b"\0")
        g = ir.GlobalVariable(self.module, ir.ArrayType(abi.I8, len(data)),
                              name=f"{self.fn.name}.msg{self.n_strings}")
        self.n_strings += 1
        g.global_constant = True
        g.linkage = "private"
        g.initializer = ir.Constant(ir.ArrayType(abi.I8, len(data)), data)
        self.strings[text] = g
        return g

    def fail(self, kind: int, message: str, loc: Loc | None) -> None:
        line = loc.line if loc else 0
        g = self.cstring(message + self.where(loc) if message else self.where(loc).lstrip())
        b = self.b
        fld = lambda k: b.gep(self.ctx, [abi.I32(0), abi.I32(k)], inbounds=True,  # noqa: E731
                              source_etype=abi.CTX)
        b.store(abi.I32(kind), fld(abi.CTX_ERR_KIND))
        b.store(abi.I32(line), fld(abi.CTX_ERR_LINE))
        b.store(g, fld(abi.CTX_ERR_MSG))
        b.ret(abi.I32(kind))  # the block is terminated, so if_then adds no branch after it


def _push_run(body, i: int) -> int:
    """The tape bytes of the pushes from `body[i]` (a push) to the first statement that is
    neither a push nor an op without effects that at most reads memory and calls no
    compiled function (none of those touches the tape): the room for them all is made by
    one check (custom.reserve)."""
    size = 0
    for s in body[i:]:
        if not isinstance(s, Op):
            break
        if s.op == "push":
            size += abi.tape_size(s.args[0].type)
            continue
        row = OPS[s.op]
        if row.effect or row.memory not in ("", "read") \
                or row.lower[0] in ("call", "kernel", "loops"):
            break
    return size


#: ops that use the tape, or may (a compiled function's call)
_TAPE_OPS = frozenset({"push", "pop", "tapemark", "tapecut", "tapepeak", "call", "callfwd",
                       "callbwd", "custom_vjp"})


def _tape_run(s: While, op: str) -> int:
    """The bytes each trip of `s` pushes (`op` "push") or pops ("pop"), when its body does
    so only in its own statements (none under an `if` or in a loop inside it) and nothing
    else in it uses the tape; else 0."""
    top = [st for st in s.body.body if isinstance(st, Op) and st.op == op]
    if not top or any(isinstance(st, Op) and st.op in _TAPE_OPS for st in walk(s.cond)):
        return 0
    inside = sum(1 for st in walk(s.body) if isinstance(st, Op) and st.op in _TAPE_OPS)
    sizes = [abi.tape_size(st.args[0].type if op == "push" else st.outs[0].type)
             for st in top]
    return sum(sizes) if inside == len(top) else 0


def _pushes(f: Func) -> bool:
    """Whether `f` pushes on the tape (a backward sweep that re-runs checkpointed trips)."""
    return any(isinstance(s, Op) and s.op in ("push", "callfwd") for s in walk(f.block))


def saved_struct(saved: tuple[Var, ...] | list[Var]) -> ir.LiteralStructType:
    """A pullback struct: the runtime's header (the forward sweep's tape), then the saved
    values; field k + SAVED_FIELD0 holds saved value k."""
    return ir.LiteralStructType(abi.PULLBACK_HEADER + [abi.mem_type(v.type) for v in saved])


SAVED_FIELD0 = len(abi.PULLBACK_HEADER)


#: the largest k of `x ** k` computed by products (`_whole`)
MAX_POWER = 16


def _whole(v: ir.Value) -> int | None:
    """k when `v` is a float constant holding a whole number k, 3 <= k <= MAX_POWER: `x ** k`
    is then LLVM's powi, products by repeated squaring, as JAX and Numba compute it; pow is
    one libm call per element, which keeps a loop scalar. Each of the k - 1 products rounds
    once, so the result may differ from NumPy's correctly rounded power in its last bits
    (docs/arrays.md). `x ** 2` is `x * x` already (ir/shapes.py), the same bits as pow.
    A negative k stays pow: powi's `1 / x ** -k` is 0 where `x ** -k` overflows but the
    power itself is a subnormal number (`1e20 ** -16` is 1e-320)."""
    if not (isinstance(v, ir.Constant) and v.type == abi.F64):
        return None
    k = v.constant
    ok = isinstance(k, float) and k.is_integer() and 3 <= k <= MAX_POWER
    return int(k) if ok else None


def const(t: str, value) -> ir.Constant:
    if t == F64:
        return ir.Constant(abi.F64, float(value))
    if t == BOOL:
        return ir.Constant(abi.I1, int(bool(value)))
    return ir.Constant(abi.I64, int(value))


def emit_kernel(state: ModuleState | ir.Module, func: Func, name: str, **kw) -> ir.Function:
    """Emit `func` as kernel `name` into `state`'s module (a bare module gets a state of its
    own: fine for a module without callees, or with a single kernel)."""
    return KernelEmitter(state, func, name, **kw).emit()
