"""The pyad IR: a typed SSA Wengert list with structured control flow, and its text form.

A `Func` is a `Block` whose params are the function's arguments and whose results are its
return values. A block is a straight list of statements:

- `Op`: one primitive from the op table (`pyad/ir/ops.py`) applied to SSA values;
- `If`: a structured branch whose two blocks yield the If's results;
- `While`: a loop with explicit loop-carried values (a `cond` block and a `body` block).

Every value is a `Var` (unique name, type). There are no tuples in the IR: Python
tuples are unpacked by the frontend into several values. Scalar types are the strings "f64",
"i64" and "bool"; array types add the number of dimensions: "f64[2d]" is a 2-D float64
array. An array value is a reference (data pointer, shape, strides): views share memory
with their base, and `store` writes through it.

Printing is `str(func)`; `pyad.ir.parse.parse_func` reads the same text back. The printer
chooses the names (`print_names`): params keep their names, temporaries are numbered in
the order the text defines them, so the text depends only on the IR's structure.

    func f(%a: f64, %b: f64) -> (f64) {
      %1: f64 = mul %b, %b  !3:22
      ...
      return %3
    }

`!line:col` is the statement's source location (line in the file, 0-based column).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from .types import (ARRAY_TYPES, BOOL, F64, I64, MAX_NDIM, SCALAR_TYPES, TYPES,  # noqa: F401
                    array_type, elem_type, is_array, ndim_of)


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
    pyad/frontend/recursion.py): `func` takes the call's args (of `arg_types`) and returns `result_types`; `shape`
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
    comment lines above the loop (the AD pass writes its plan for the loop there).
    `unrolled`: the compiler unrolled the loop itself (ir/jam.py), so codegen asks LLVM not
    to unroll it again."""

    outs: tuple[Var, ...]
    inits: tuple[Var, ...]
    cond: Block
    body: Block
    loc: Loc | None = None
    note: "Note" = ()
    unrolled: bool = False


Stmt = Union[Op, If, While]

#: A comment on a loop: text pieces and the values it mentions, which print with the names
#: the printer gives them (so a note stays true when values are renamed or printed).
Note = tuple[Union[str, Var], ...]


def rename_note(note: Note, rename) -> Note:
    """`note` with each value it mentions replaced by `rename(value)`."""
    return tuple(p if isinstance(p, str) else rename(p) for p in note)


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
    """Every statement of `block`, nested ones included, in program order (a statement, then
    those of its blocks, then the next one). One generator with a stack of the blocks being
    walked: a recursive one passed each statement up through every level of nesting, and
    walks are most of the compiler's own time."""
    stack = [iter(block.body)]
    while stack:
        for s in stack[-1]:
            yield s
            if type(s) is not Op:  # an If or a While: its blocks come next, in order
                for b in reversed(blocks_of(s)):
                    stack.append(iter(b.body))
                break
        else:
            stack.pop()


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


def defined_in(s: "Stmt") -> set[str]:
    """Names a statement defines inside its blocks: their params and the results of every
    statement in them, nested ones included (not the statement's own results)."""
    names: set[str] = set()
    for b in blocks_of(s):
        names.update(p.name for p in b.params)
        for t in walk(b):
            names.update(o.name for o in t.outs)
            names.update(p.name for c in blocks_of(t) for p in c.params)
    return names


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
                              rename_block(s.body, mapping), s.loc, rename_note(s.note, r),
                              s.unrolled))
    return Block(block.params, tuple(body), tuple(map(r, block.results)))


# ----------------------------------------------------------------------------- printing
#
# Names are chosen at print time, per printed function, so the text depends only on the
# IR's structure (golden files do not change when a pass creates one more value earlier).
# Values are named in the order the text defines them (params first, then each statement's
# results, then the params and statements of its blocks):
#
# - a value with a name made from a hint keeps the hint without NameGen's `.<n>` counters,
#   the first one bare and the next ones numbered: `%s`, `%s.1`, `%s.2`; other parts of the
#   name stay (`%a.d`, the shadow of `%a`, is the stem `a.d`);
# - anonymous values (names starting with a number) are `%1`, `%2`, ... in definition
#   order, keeping the other parts of the name (`%7.d`);
# - a value the function does not define (invalid IR, or one a loop's note mentions that a
#   pass merged away) prints as `%?`.

_UNDEFINED = "%?"


def print_names(f: Func) -> dict[str, str]:
    """The printed name (with its `%`) of every value `f` defines, by the value's name."""
    names: dict[str, str] = {}
    anonymous = 0
    taken: dict[str, int] = {}
    for v in _definitions(f.block):
        head, *rest = v.name.split(".")
        tail = "".join("." + p for p in rest if not p.isdigit())
        if head.isdigit():
            anonymous += 1
            names[v.name] = f"%{anonymous}{tail}"
            continue
        stem = head + tail
        k = taken.get(stem, 0)
        taken[stem] = k + 1
        names[v.name] = f"%{stem}.{k}" if k else f"%{stem}"
    return names


def _definitions(block: Block) -> Iterator[Var]:
    """The values `block` defines, in the order its text defines them."""
    yield from block.params
    for s in block.body:
        yield from s.outs
        for b in blocks_of(s):
            yield from _definitions(b)


def format_const(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # 'inf', 'nan', '-inf' parse back via float()
    return str(value)


class _Printer:
    """The text of one function, with the names `print_names` chose."""

    def __init__(self, f: Func) -> None:
        self.names = print_names(f)
        self.lines: list[str] = []

    def name(self, v: Var) -> str:
        return self.names.get(v.name, _UNDEFINED)

    def names_of(self, vs: tuple[Var, ...]) -> str:
        return ", ".join(map(self.name, vs))

    def decls(self, vs: tuple[Var, ...]) -> str:
        return ", ".join(f"{self.name(v)}: {v.type}" for v in vs)

    def note(self, note: Note) -> str:
        return "".join(p if isinstance(p, str) else self.name(p) for p in note)

    def stmt(self, s: Stmt, indent: str) -> None:
        loc = f"  {s.loc}" if s.loc is not None else ""
        lhs = self.decls(s.outs) + " = " if s.outs else ""
        if isinstance(s, Op):
            parts = [self.name(a) for a in s.args] + [format_const(a) for a in s.attrs]
            rhs = s.op + (" " + ", ".join(parts) if parts else "")
            self.lines.append(f"{indent}{lhs}{rhs}{loc}")
            return
        if isinstance(s, While):
            self.lines.extend(f"{indent}# {line}" for line in self.note(s.note).splitlines())
            self.lines.append(f"{indent}{lhs}while ({self.names_of(s.inits)}) "
                              f"cond({self.decls(s.cond.params)}) {{{loc}")
            self.block_body(s.cond, indent + "  ")
            self.lines.append(f"{indent}}} do({self.decls(s.body.params)}) {{")
            self.block_body(s.body, indent + "  ")
            self.lines.append(f"{indent}}}")
            return
        self.lines.append(f"{indent}{lhs}if {self.name(s.cond)} {{{loc}")
        self.block_body(s.then, indent + "  ")
        self.lines.append(f"{indent}}} else {{")
        self.block_body(s.orelse, indent + "  ")
        self.lines.append(f"{indent}}}")

    def block_body(self, b: Block, indent: str) -> None:
        for s in b.body:
            self.stmt(s, indent)
        self.lines.append(f"{indent}yield {self.names_of(b.results)}")


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
    p = _Printer(f)
    rtypes = ", ".join(r.type for r in f.results)
    p.lines.append(f"func {name or f.name}({p.decls(f.params)}) -> ({rtypes}) {{")
    for s in f.block.body:
        p.stmt(s, "  ")
    p.lines.append(f"  return {p.names_of(f.results)}")
    p.lines.append("}")
    return "\n".join(p.lines) + "\n"
