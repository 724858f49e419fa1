"""An IR builder: appends typed ops to a statement list, so rules read like math.

    b = Builder(names)
    y = b.mul(ct, b.cos(x))       # emits `cos` then `mul`, result types from the op table

Constants are always f64 unless a type is given. `b.loc` is stamped on every op emitted,
so code generated from a user's line (adjoints included) keeps that line.
"""
from __future__ import annotations

from .nodes import F64, Block, Func, If, Loc, Op, Stmt, Var, While, blocks_of, rename_note, walk
from .ops import OPS


class NameGen:
    """Fresh SSA names, unique within one function."""

    def __init__(self, taken: set[str] | None = None) -> None:
        self.taken = set(taken or ())
        self.counter = 0

    def fresh(self, hint: str = "") -> str:
        base = hint or "t"
        if hint and hint not in self.taken:
            self.taken.add(hint)
            return hint
        while True:
            self.counter += 1
            name = f"{base}.{self.counter}" if hint else str(self.counter)
            if name not in self.taken:
                self.taken.add(name)
                return name

    def adjoint(self, name: str) -> str:
        """A fresh name for the adjoint of the value `name`: `d` and its name (`ds.3` for
        `s.3`), or `d` alone for a temporary, whose number the printer does not keep."""
        return self.fresh("d" if name[:1].isdigit() else "d" + name)


def names_of(func: Func) -> NameGen:
    """Fresh names for new values of `func` (none of the names it uses)."""
    taken = {p.name for p in func.params}
    for s in walk(func.block):
        taken.update(o.name for o in s.outs)
        for b in blocks_of(s):
            taken.update(p.name for p in b.params)
    return NameGen(taken)


class Builder:
    def __init__(self, names: NameGen, loc: Loc | None = None) -> None:
        self.names = names
        self.stmts: list[Stmt] = []
        self.loc = loc

    def emit(self, op: str, *args: Var, attrs: tuple = (), type: str | None = None,
             hint: str = "") -> Var | None:
        row = OPS[op]
        if type is None:
            type = row.result_type(tuple(a.type for a in args), attrs)
            if type is None:
                sig = ", ".join(a.type for a in args)
                raise TypeError(f"internal error: op {op} has no signature ({sig})")
        if type == "void":  # an effect without a result (push, raise_if)
            self.stmts.append(Op((), op, tuple(args), attrs, self.loc))
            return None
        out = Var(self.names.fresh(hint), type)
        self.stmts.append(Op((out,), op, tuple(args), attrs, self.loc))
        return out

    def const(self, value: float | int | bool, type: str = F64) -> Var:
        if type == F64:
            value = float(value)
        return self.emit("const", attrs=(value,), type=type)

    def __getattr__(self, op: str):
        if op not in OPS:
            raise AttributeError(op)
        return lambda *args: self.emit(op, *args)

    def inline(self, block: Block, args: list[Var],
               mapping: dict[str, Var] | None = None) -> list[Var]:
        """Append a copy of `block` (every value renamed fresh) with its params bound to
        `args`; the copy's results. With `mapping`, uses of its names read their values from
        it, and it receives the copy's names for the values `block` defines (a caller that
        copies the statements of one scope in pieces, e.g. ir/jam.py's lanes)."""
        mapping = {} if mapping is None else mapping
        mapping.update({p.name: a for p, a in zip(block.params, args)})

        def use(v: Var) -> Var:
            return mapping.get(v.name, v)

        def define(v: Var) -> Var:
            mapping[v.name] = Var(self.names.fresh(v.name.split(".")[0]), v.type)
            return mapping[v.name]

        def copy(blk: Block) -> Block:
            params = tuple(define(p) for p in blk.params)
            body: list[Stmt] = []
            for s in blk.body:
                if isinstance(s, Op):
                    args_ = tuple(map(use, s.args))
                    body.append(Op(tuple(map(define, s.outs)), s.op, args_, s.attrs, s.loc))
                elif isinstance(s, If):
                    cond, then, orelse = use(s.cond), copy(s.then), copy(s.orelse)
                    body.append(If(tuple(map(define, s.outs)), cond, then, orelse, s.loc))
                else:
                    inits, cond, loop = tuple(map(use, s.inits)), copy(s.cond), copy(s.body)
                    outs = tuple(map(define, s.outs))
                    body.append(While(outs, inits, cond, loop, s.loc, rename_note(s.note, use),
                                      s.unrolled))
            return Block(params, tuple(body), tuple(map(use, blk.results)))

        done = copy(Block((), block.body, block.results))
        self.stmts.extend(done.body)
        return list(done.results)

