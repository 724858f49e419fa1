"""Scalar replacement of small arrays: an array of a few elements whose shape is known at
compile time, and which is only read and written at constant indices, becomes one scalar
value per element (the state vector of an ODE step built by `np.array([x, y, z])`, a 2x2
matrix, the stages of a Runge-Kutta step, rows of them read by `k[0]`). Its element loops run the same code as the loop
spelling of the same function: no allocation per step, nothing on the tape but scalars.

Steps repeated while they find work:
0. `expand_small` (pyad/ir/small_ops.py): products, outer products and copies of small
   arrays of known shape become element code (a whole-array op would keep them arrays);
1. `unroll`: a counted loop (`range_bounds`) with a known number of trips (at most
   `MAX_TRIPS`), no inner loop, and a read or write of a small array of known shape in its
   body is replaced by one copy of its body per trip, the counter a constant in each copy
   (so the element loops of whole-array expressions on small arrays disappear);
2. `fold_known` (pyad/ir/shapes.py) makes the indices, the broadcasting and bounds checks
   and the `dim`s of those arrays constants.

Then `replace` turns each family of such arrays into scalars: a family is an array made by
`alloc` (zeros) or `constarray` and the values it flows into through loop-carried values and
branch results. A family qualifies when all its arrays have one shape of at most
`MAX_ELEMENTS` elements and every use of them is a `load` or `store` at constant indices, a
`dim`, or a carried value/branch result of the family; and when no two of its values are
alive as names of one array (a value passed into a loop or out of a branch is not used
after). Anything else (a view, a call, a whole-array primitive, a result of the function)
keeps the family as arrays. A loop or branch that stores into an array of the family defined
before it carries that array's elements as values of its own.
"""
from __future__ import annotations

from collections import defaultdict

from .builder import Builder, names_of
from .counting import range_bounds
from .nodes import BOOL, F64, I64, Block, Func, If, Op, Stmt, Var, While, blocks_of, \
    elem_type, is_array, rename_block, walk
from .shapes import Shape, fold_known, known
from .small_ops import expand_small

MAX_ELEMENTS = 16    # arrays of at most this many elements become scalars
MAX_TRIPS = 16       # loops of at most this many trips are unrolled ...
MAX_UNROLLED = 400   # ... when trips x statements stays below this


def scalarize(func: Func) -> Func:
    """`func` with its small arrays replaced by scalars (the same Func if it has none)."""
    if not any(isinstance(s, Op) and s.op in ("alloc", "constarray") for s in walk(func.block)):
        return func
    for _ in range(8):
        func = fold_known(func)
        facts = known(func)
        step = expand_small(func, facts)
        if step is func:
            step = unroll(func, facts)
        if step is func:
            break
        func = step
    return replace(func, known(func))


def _small(fact: object) -> bool:
    return isinstance(fact, Shape) and fact.size <= MAX_ELEMENTS


# ----------------------------------------------------------------------------- unrolling

def unroll(func: Func, facts: dict[str, object]) -> Func:
    """`func` with the short counted loops over small arrays unrolled (the same Func if
    there are none)."""
    names = names_of(func)
    changed = False

    def trips(s: While) -> int | None:
        rb = range_bounds(s)
        if rb is None:
            return None
        _, lo, hi, step = rb
        lo, hi = facts.get(lo.name), facts.get(hi.name)
        step = step if isinstance(step, int) else facts.get(step.name)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi, step)) \
                or step <= 0:
            return None
        return max(0, -(-(hi - lo) // step))

    def worth(s: While) -> bool:
        stmts = list(walk(s.body))
        if any(isinstance(t, While) for t in stmts) or len(s.cond.body) != 1:
            return False
        n = trips(s)
        if n is None or n > MAX_TRIPS or n * len(stmts) > MAX_UNROLLED:
            return False
        return any(isinstance(t, Op) and t.op in ("load", "store") and _small(facts.get(t.args[0].name))
                   for t in stmts)

    def block(b: Block) -> Block:
        nonlocal changed
        out = Builder(names)
        alias: dict[str, Var] = {}
        for s in b.body:
            if alias:   # uses of the results of loops unrolled before this statement
                s = rename_block(Block((), (s,), ()), alias).body[0]
            if isinstance(s, While) and worth(s):
                changed = True
                k, lo, _, step = range_bounds(s)
                start = facts[lo.name]
                step = step if isinstance(step, int) else facts[step.name]
                values = list(s.inits)
                for t in range(trips(s)):
                    out.loc = s.loc
                    values[k] = out.const(start + t * step, I64)
                    values = out.inline(s.body, values)
                for o, v in zip(s.outs, values):
                    alias[o.name] = v
                continue
            if isinstance(s, If):
                s = If(s.outs, s.cond, block(s.then), block(s.orelse), s.loc)
            elif isinstance(s, While):
                s = While(s.outs, s.inits, block(s.cond), block(s.body), s.loc, s.note)
            out.stmts.append(s)
        return Block(b.params, tuple(out.stmts), tuple(alias.get(r.name, r) for r in b.results))

    new = block(func.block)
    return Func(func.name, new, func.filename, func.arg_names) if changed else func


# ----------------------------------------------------------------------------- families

class _Families:
    """Union-find over array values linked by carried values and branch results."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, a: str) -> str:
        self.parent.setdefault(a, a)
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a: str, b: str) -> None:
        self.parent[self.find(a)] = self.find(b)


def _links(s: Stmt) -> list[tuple[Var, list[Var]]]:
    """(value defined by a carried slot or branch result, the values flowing into it)."""
    if isinstance(s, If):
        return [(o, [a, b]) for o, a, b in zip(s.outs, s.then.results, s.orelse.results)]
    if isinstance(s, While):
        out = []
        for k, i in enumerate(s.inits):
            srcs = [i, s.body.results[k]]
            out += [(s.outs[k], srcs), (s.cond.params[k], srcs), (s.body.params[k], srcs)]
        return out
    return []


def qualifying(func: Func, facts: dict[str, object]) -> set[str]:
    """The names of the array values `replace` turns into scalars."""
    fam = _Families()
    bad: set[str] = set()            # roots are looked up at the end
    shape: dict[str, Shape] = {}
    order: dict[str, int] = {}       # statement position of each use (program order)
    uses: dict[str, list[tuple[int, str]]] = defaultdict(list)   # name -> (position, how)
    ends: dict[int, int] = {}        # position of an If/While -> last position inside it
    base: dict[str, str] = {}        # a `row` view -> the array it is a view of

    def is_arr(v: Var) -> bool:
        return is_array(v.type)

    def visit(b: Block, pos: list[int]) -> None:
        for s in b.body:
            here = pos[0]
            pos[0] += 1
            for v in s.outs:
                order[v.name] = here
            if isinstance(s, Op):
                for a in filter(is_arr, s.args):
                    uses[base.get(a.name, a.name)].append((here, "op"))
                    ok = s.op in ("load", "store", "dim", "row") and a is s.args[0] and \
                        (s.op == "dim" or constant_index(a, s.args[1:]))
                    if not ok:
                        bad.add(base.get(a.name, a.name))
                for o in filter(is_arr, s.outs):
                    fact = facts.get(o.name)
                    if s.op in ("alloc", "constarray") and _small(fact):
                        shape[o.name] = fact
                    elif s.op == "row" and s.args[0].name not in bad and \
                            isinstance(fact, Shape):
                        base[o.name] = base.get(s.args[0].name, s.args[0].name)
                    else:
                        bad.add(o.name)
                continue
            for blk in blocks_of(s):
                for p in filter(is_arr, blk.params):
                    order[p.name] = here
                visit(blk, pos)
            ends[here] = pos[0] - 1
            if isinstance(s, While):
                for v in filter(is_arr, s.inits):
                    uses[v.name].append((here, "init"))
                for k, y in enumerate(s.body.results):
                    if is_arr(y) and y.name != s.body.params[k].name:
                        uses[y.name].append((ends[here], "yield"))
                        if order.get(y.name, -1) < here:   # every trip would share it
                            bad.add(y.name)
                for t in walk(s.cond):
                    if isinstance(t, Op) and t.op == "store":
                        bad.add(t.args[0].name)
                if any(is_arr(v) for v in s.cond.results):
                    bad.update(v.name for v in s.cond.results)
            else:
                for blk in (s.then, s.orelse):
                    for y in filter(is_arr, blk.results):
                        uses[y.name].append((ends[here], "yield"))
            for o, srcs in _links(s):
                if is_arr(o):
                    fact = facts.get(o.name)
                    if _small(fact):
                        shape[o.name] = fact
                    else:
                        bad.add(o.name)
                    for src in srcs:
                        fam.union(o.name, src.name)
            if isinstance(s, While):   # a value passed in twice, or also used inside
                seen: set[str] = set()
                for v in filter(is_arr, s.inits):
                    if v.name in seen:
                        bad.add(v.name)
                    seen.add(v.name)

    def constant_index(a: Var, idx: tuple[Var, ...]) -> bool:
        fact = facts.get(a.name)
        if not isinstance(fact, Shape):
            return False
        ks = [facts.get(i.name) for i in idx[:len(fact.dims)]]
        return all(isinstance(k, int) and 0 <= k < d for k, d in zip(ks, fact.dims))

    visit(func.block, [0])
    for view, b in base.items():     # a view handed on (into a loop, out of a branch)
        if view in fam.parent or view in bad:
            bad.update((view, b))
    bad.update(r.name for r in func.results if is_array(r.type))
    bad.update(p.name for p in func.params if is_array(p.type))
    # a value handed on (into a loop, out of a branch) is handed on once and not used after
    for name, us in uses.items():
        handed = [(p, h) for p, h in us if h != "op"]
        if len(handed) > 1:
            bad.add(name)
        elif handed:
            pos, how = handed[0]
            if any(p >= pos if how == "init" else p > pos for p, h in us if h == "op"):
                bad.add(name)
    members: dict[str, list[str]] = defaultdict(list)
    for name in set(shape) | bad | set(fam.parent):
        members[fam.find(name)].append(name)
    ok: set[str] = set()
    for group in members.values():
        shapes = {shape.get(n) for n in group}
        if bad.isdisjoint(group) and len(shapes) == 1 and None not in shapes:
            ok.update(group)
    return ok | {view for view, b in base.items() if b in ok}


# ----------------------------------------------------------------------------- replacing

def replace(func: Func, facts: dict[str, object]) -> Func:
    """`func` with the qualifying arrays (see `qualifying`) replaced by their elements."""
    ok = qualifying(func, facts)
    if not ok:
        return func
    names = names_of(func)
    alias: dict[str, Var] = {}
    view: dict[str, tuple[str, int]] = {}   # a `row` view -> (its array, its first element)

    def r(v: Var) -> Var:
        return alias.get(v.name, v)

    def at(v: Var, idx: tuple[Var, ...]) -> tuple[str, int]:
        """The array whose elements `v[idx]` is one of, and that element's position."""
        name, start = view.get(v.name, (v.name, 0))
        return name, start + flat(v, idx)

    def size(v: Var) -> int:
        return facts[v.name].size

    def flat(v: Var, idx: tuple[Var, ...]) -> int:
        """The row-major position of `v[idx]` (idx may leave trailing axes out)."""
        dims = facts[v.name].dims
        k = 0
        for n, d in enumerate(dims):
            k = k * d + (facts[idx[n].name] if n < len(idx) else 0)
        return k

    def fresh_like(v: Var) -> list[Var]:
        return [Var(names.fresh(v.name.split(".")[0]), elem_type(v.type)) for _ in range(size(v))]

    def stored_inside(s: Stmt, state: dict) -> list[str]:
        """Arrays of `state` (defined before s) that s writes."""
        found: list[str] = []
        for b in blocks_of(s):
            for t in walk(b):
                name = view.get(t.args[0].name, (t.args[0].name,))[0] \
                    if isinstance(t, Op) and t.op == "store" else None
                if name in state and name not in found:
                    found.append(name)
        return found

    def block(b: Block, state: dict[str, list[Var]]) -> tuple[list[Stmt], dict]:
        out = Builder(names)
        for s in b.body:
            out.loc = s.loc
            if isinstance(s, Op):
                op(s, out, state)
            elif isinstance(s, If):
                branch(s, out, state)
            else:
                loop(s, out, state)
        return out.stmts, state

    def op(s: Op, out: Builder, state: dict) -> None:
        if s.op in ("alloc", "constarray") and s.outs[0].name in ok:
            v = s.outs[0]
            if s.op == "alloc":
                zero = out.const({F64: 0.0, I64: 0, BOOL: False}[elem_type(v.type)],
                                 elem_type(v.type))
                state[v.name] = [zero] * size(v)
            else:
                state[v.name] = [out.const(x, elem_type(v.type))
                                 for x in s.attrs[1 + s.attrs[0]:]]
            return
        if s.args and s.args[0].name in ok:
            a = s.args[0]
            if s.op == "load":
                name, k = at(a, s.args[1:])
                alias[s.outs[0].name] = state[name][k]
            elif s.op == "store":
                name, k = at(a, s.args[1:-1])
                elems = list(state[name])
                elems[k] = r(s.args[-1])
                state[name] = elems
            elif s.op == "row":
                view[s.outs[0].name] = at(a, s.args[1:2])
            else:   # dim
                out.stmts.append(Op(s.outs, "const", (), (facts[a.name].dims[s.attrs[0]],),
                                    s.loc))
            return
        out.stmts.append(Op(s.outs, s.op, tuple(map(r, s.args)), s.attrs, s.loc))

    def expand(vs, get) -> tuple[Var, ...]:
        """Scalar values for `vs`: an array of the family becomes get(it)'s elements."""
        res: list[Var] = []
        for v in vs:
            res += get(v) if v.name in ok else [r(v)]
        return tuple(res)

    def defined(vs: tuple[Var, ...], written: list[str], state: dict) -> tuple[Var, ...]:
        """Names for what a branch or loop defines: `vs` (an array of a family becomes one
        fresh value per element) and the elements of the `written` arrays, recorded in
        `state`."""
        new: list[Var] = []
        for v in vs:
            if v.name in ok:
                state[v.name] = fresh_like(v)
                new += state[v.name]
            else:
                new.append(v)
        for n in written:
            state[n] = [Var(names.fresh(""), e.type) for e in state[n]]
            new += state[n]
        return tuple(new)

    def branch(s: If, out: Builder, state: dict) -> None:
        written = stored_inside(s, state)
        blocks = []
        for blk in (s.then, s.orelse):
            st = dict(state)
            stmts, st = block(blk, st)
            results = expand(blk.results, lambda v: st[v.name]) + \
                tuple(e for n in written for e in st[n])
            blocks.append(Block((), tuple(stmts), results))
        out.stmts.append(If(defined(s.outs, written, state), r(s.cond), blocks[0], blocks[1],
                            s.loc))

    def loop(s: While, out: Builder, state: dict) -> None:
        written = stored_inside(s, state)
        inits = expand(s.inits, lambda v: state[v.name]) + \
            tuple(e for n in written for e in state[n])

        def params(ps: tuple[Var, ...]) -> tuple[tuple[Var, ...], dict]:
            st = dict(state)
            return defined(ps, written, st), st

        cps, cst = params(s.cond.params)
        cstmts, _ = block(s.cond, cst)
        cond = Block(cps, tuple(cstmts), tuple(map(r, s.cond.results)))
        bps, bst = params(s.body.params)
        bstmts, bst = block(s.body, bst)
        results = expand(s.body.results, lambda v: bst[v.name]) + \
            tuple(e for n in written for e in bst[n])
        body = Block(bps, tuple(bstmts), results)
        out.stmts.append(While(defined(s.outs, written, state), inits, cond, body, s.loc,
                               s.note))

    stmts, _ = block(func.block, {})
    new = Block(func.params, tuple(stmts), tuple(map(r, func.results)))
    return Func(func.name, new, func.filename, func.arg_names)
