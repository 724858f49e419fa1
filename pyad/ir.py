"""The pyad IR: a typed SSA Wengert list with structured control flow, and its text form.

A `Func` is a `Block` whose params are the function's arguments and whose results are its
return values. A block is a straight list of statements:

- `Op`: one primitive from the op table (`pyad/ops.py`) applied to SSA values;
- `If`: a structured branch whose two blocks yield the If's results;
- `While`: a loop with explicit loop-carried values (a `cond` block and a `body` block).

Every value is a `Var` (unique name, type). There are no tuples in the IR: Python
tuples are unpacked by the frontend into several values. Scalar types are the strings "f64",
"i64" and "bool"; array types add the number of dimensions: "f64[2d]" is a 2-D float64
array. An array value is a reference (data pointer, shape, strides): views share memory
with their base, and `store` writes through it. Printing is `str(func)`; `pyad.irparse.parse_func` reads the same text back.

    func f(%a: f64, %b: f64) -> (f64) {
      %0: f64 = mul %b, %b  !3:22
      ...
      return %3
    }

`!line:col` is the statement's source location (line in the file, 0-based column).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

F64, I64, BOOL = "f64", "i64", "bool"
SCALAR_TYPES = (F64, I64, BOOL)
MAX_NDIM = 3


def array_type(elem: str, ndim: int) -> str:
    return f"{elem}[{ndim}d]"


def is_array(t: str) -> bool:
    return t.endswith("d]")


def elem_type(t: str) -> str:
    return t.split("[", 1)[0]


def ndim_of(t: str) -> int:
    return int(t[t.index("[") + 1]) if is_array(t) else 0


ARRAY_TYPES = tuple(array_type(e, n) for e in SCALAR_TYPES for n in range(1, MAX_NDIM + 1))
TYPES = SCALAR_TYPES + ARRAY_TYPES


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    type: str

    def __str__(self) -> str:
        return f"%{self.name}"


@dataclass(frozen=True, slots=True)
class Loc:
    line: int
    col: int = 0
    end_col: int | None = None
    file: str | None = None  # set for code inlined from another file than the Func's

    def __str__(self) -> str:
        return f"!{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Op:
    """outs = op(args) with constant attributes (e.g. the value of a `const`)."""

    outs: tuple[Var, ...]
    op: str
    args: tuple[Var, ...] = ()
    attrs: tuple = ()
    loc: Loc | None = None


@dataclass(eq=False)
class Callee:
    """A function that `call` ops run as a native function of its own (recursion, see
    pyad/recursion.py): `func` takes the call's args (of `arg_types`) and returns `result_types`; `shape`
    rebuilds the Python value (a result index or a nested tuple of them). Compared by
    identity; printed as `@name`."""

    name: str
    arg_types: tuple[str, ...] = ()
    result_types: tuple[str, ...] = ()
    shape: object = 0
    func: "Func | None" = None
    gradient: object = field(default=None, repr=False)  # (fwd, bwd) Funcs, made by pyad.ad

    def __str__(self) -> str:
        return f"@{self.name}"


@dataclass(frozen=True, slots=True)
class Block:
    params: tuple[Var, ...]
    body: tuple["Stmt", ...]
    results: tuple[Var, ...]


@dataclass(frozen=True, slots=True)
class If:
    """outs = cond ? then.results : orelse.results (only the taken block runs)."""

    outs: tuple[Var, ...]
    cond: Var
    then: Block
    orelse: Block
    loc: Loc | None = None


@dataclass(frozen=True, slots=True)
class While:
    """A loop with explicit loop-carried values:

        carried = inits
        while cond(carried): carried = body(carried)
        outs = carried

    `cond` and `body` take the carried values as their params (each block its own names);
    `cond` yields one bool, `body` yields the next carried values. `note` is printed as
    comment lines above the loop (the AD pass writes its plan for the loop there)."""

    outs: tuple[Var, ...]
    inits: tuple[Var, ...]
    cond: Block
    body: Block
    loc: Loc | None = None
    note: str = ""


Stmt = Union[Op, If, While]


def blocks_of(s: "Stmt") -> tuple[Block, ...]:
    if isinstance(s, If):
        return (s.then, s.orelse)
    if isinstance(s, While):
        return (s.cond, s.body)
    return ()


@dataclass(frozen=True, slots=True)
class Func:
    name: str
    block: Block
    filename: str = "<unknown>"
    # Argument names as the user wrote them (the block params may be renamed).
    arg_names: tuple[str, ...] = field(default=())

    @property
    def params(self) -> tuple[Var, ...]:
        return self.block.params

    @property
    def results(self) -> tuple[Var, ...]:
        return self.block.results

    def __str__(self) -> str:
        return format_func(self)


# ----------------------------------------------------------------------------- traversal

def walk(block: Block) -> Iterator[Stmt]:
    """Every statement of `block`, nested ones included, in program order."""
    for s in block.body:
        yield s
        for b in blocks_of(s):
            yield from walk(b)


def stmt_uses(s: Stmt) -> tuple[Var, ...]:
    """The values a statement reads from its enclosing scope (nested blocks included)."""
    if isinstance(s, Op):
        return s.args
    used: list[Var] = [s.cond] if isinstance(s, If) else list(s.inits)
    for b in blocks_of(s):
        used.extend(free_vars(b))
    return tuple(used)


def free_vars(block: Block) -> list[Var]:
    """Values used in `block` (or its nested blocks) but defined outside it, in first-use order."""
    defined = {p.name for p in block.params}
    seen: dict[str, Var] = {}
    for s in block.body:
        for v in stmt_uses(s):
            if v.name not in defined and v.name not in seen:
                seen[v.name] = v
        defined.update(o.name for o in s.outs)
    for v in block.results:
        if v.name not in defined and v.name not in seen:
            seen[v.name] = v
    return list(seen.values())


def rename_block(block: Block, mapping: dict[str, Var]) -> Block:
    """`block` with every use of a name in `mapping` replaced (definitions are untouched)."""
    if not mapping:
        return block

    def r(v: Var) -> Var:
        return mapping.get(v.name, v)

    body: list[Stmt] = []
    for s in block.body:
        if isinstance(s, Op):
            body.append(Op(s.outs, s.op, tuple(map(r, s.args)), s.attrs, s.loc))
        elif isinstance(s, If):
            body.append(If(s.outs, r(s.cond), rename_block(s.then, mapping),
                           rename_block(s.orelse, mapping), s.loc))
        else:
            body.append(While(s.outs, tuple(map(r, s.inits)), rename_block(s.cond, mapping),
                              rename_block(s.body, mapping), s.loc, s.note))
    return Block(block.params, tuple(body), tuple(map(r, block.results)))


# ----------------------------------------------------------------------------- printing

def format_const(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # 'inf', 'nan', '-inf' parse back via float()
    return str(value)


def _fmt_outs(outs: tuple[Var, ...]) -> str:
    return ", ".join(f"{o}: {o.type}" for o in outs)


def _fmt_stmt(s: Stmt, indent: str, lines: list[str]) -> None:
    loc = f"  {s.loc}" if s.loc is not None else ""
    if isinstance(s, Op):
        parts = [str(a) for a in s.args] + [format_const(a) for a in s.attrs]
        rhs = s.op + (" " + ", ".join(parts) if parts else "")
        lhs = _fmt_outs(s.outs) + " = " if s.outs else ""
        lines.append(f"{indent}{lhs}{rhs}{loc}")
        return
    lhs = _fmt_outs(s.outs) + " = " if s.outs else ""
    if isinstance(s, While):
        lines.extend(f"{indent}# {line}" for line in s.note.splitlines())
        inits = ", ".join(map(str, s.inits))
        lines.append(f"{indent}{lhs}while ({inits}) cond({_fmt_outs(s.cond.params)}) {{{loc}")
        _fmt_block_body(s.cond, indent + "  ", lines)
        lines.append(f"{indent}}} do({_fmt_outs(s.body.params)}) {{")
        _fmt_block_body(s.body, indent + "  ", lines)
        lines.append(f"{indent}}}")
        return
    lines.append(f"{indent}{lhs}if {s.cond} {{{loc}")
    _fmt_block_body(s.then, indent + "  ", lines)
    lines.append(f"{indent}}} else {{")
    _fmt_block_body(s.orelse, indent + "  ", lines)
    lines.append(f"{indent}}}")


def _fmt_block_body(b: Block, indent: str, lines: list[str]) -> None:
    for s in b.body:
        _fmt_stmt(s, indent, lines)
    lines.append(f"{indent}yield " + ", ".join(map(str, b.results)))


def callees_of(f: Func) -> list[Callee]:
    """The functions `f` calls natively, directly or through other callees, in first-call
    order."""
    found: dict[int, Callee] = {}
    todo = [f]
    while todo:
        for s in walk(todo.pop().block):
            if isinstance(s, Op):
                for a in s.attrs:
                    if isinstance(a, Callee) and id(a) not in found:
                        found[id(a)] = a
                        if a.func is not None:
                            todo.append(a.func)
    return list(found.values())


def format_func(f: Func, callees: bool = True) -> str:
    """The text form of `f`, followed by the functions it calls natively (if any)."""
    text = _format_one(f)
    if callees:
        for c in callees_of(f):
            if c.func is not None:
                text += "\n" + _format_one(c.func, f"@{c.name}")
    return text


def _format_one(f: Func, name: str | None = None) -> str:
    params = ", ".join(f"{p}: {p.type}" for p in f.params)
    rtypes = ", ".join(r.type for r in f.results)
    lines = [f"func {name or f.name}({params}) -> ({rtypes}) {{"]
    for s in f.block.body:
        _fmt_stmt(s, "  ", lines)
    lines.append("  return " + ", ".join(map(str, f.results)))
    lines.append("}")
    return "\n".join(lines) + "\n"
