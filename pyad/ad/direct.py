"""Contributions added straight into the shadows of the value-and-gradient kernel, where that
gives the same bits.

An accumulating loop whose cotangent is not known while the forward sweep runs it (fused.py)
adds its contributions into a temporary array `T`, and the reverse sweep adds `ct * T` into
the shadow `S` where the loop is reversed. The value-and-gradient kernel (`fused_parts`)
knows `ct`: it is 1.0, and `1.0 * t` is `t`. The temporary still costs an allocation, its
zeroing and a pass over it; this pass makes the loop add into `S` itself, and drops `T` and
its pass, when the result has the same bits:

- the flush is the reverse sweep's loop nest `S[idx] += ct * T[idx]`, `ct` the constant
  1.0, `T` an allocation (zeros) nothing else reads, written only by `accum`;
- the array `S` views (its root `B`) starts as zeros (a shadow the wrappers zero, or an
  allocation) and every element of `B` gets at most two contributions in the whole
  function: each `accum` into `B` or a view of it, and each `accum` into `T`, adds to one
  element at most once (its loops are counted, and each loop's counter is one of its
  indices, as it is or normalized when it counts up from 0 or more), and there are at most
  two such statements. Two numbers added to zero
  give the same sum in either order, and `0 + (0 + a)` is `0 + a`, so moving the adds
  earlier changes no bit. When nothing but the flush adds into `B`, any number of adds
  into `T` may move: `B` then receives exactly the adds `T` did, in the same order, from
  the same zero (a sum started at +0 is never -0, so the flush's `0 + T` was `T`);
- nothing reads `B` (or a view) before the flush, nor writes it other than by `accum`;
- `S` is `B` or a block of its rows (`slice`), not a view with steps or reversed axes,
  and the loop adds into no other view of `B` (adds into overlapping or strided views
  keep LLVM from vectorizing it: `np.sum(np.tanh(a) ** 2 + a[:, ::-1])` 3.3x, Rosenbrock
  with both of its slices of x moved 1.5x slower than with the temporaries).

The pullback (forward and backward halves, `ct` unknown in the forward sweep) keeps the
temporaries; it gives the same bits as before, and so the same as the kernel changed here.
Rosenbrock written with NumPy slices (`x[1:] - x[:-1] ** 2`): one temporary and one pass
of 10^4 elements fewer (value and gradient 17.3 -> 15.3 us)."""
from __future__ import annotations

from ..ir.counting import counted
from ..ir.memory import VIEW_OPS
from ..ir.nodes import Block, Func, If, Op, Stmt, Var, While, blocks_of, rename_block, walk

#: at most this many adds reach one element: any order gives the same bits
_MAX_ADDS = 2
#: the count of an `accum` that may reach one element several times
_MANY = _MAX_ADDS + 1


def accumulate_directly(func: Func, zeroed: set[str]) -> Func:
    """`func` (a value-and-gradient kernel with cotangent 1.0) with the temporaries that
    qualify (module docstring) replaced by the shadows they were added to. `zeroed`: the
    params that start as zeros (the shadows of the differentiated arrays)."""
    body = list(func.block.body)
    sizes: dict[str, Var] = {}
    consts = {t.outs[0].name: t.attrs[0] for t in walk(func.block)
              if isinstance(t, Op) and t.op == "const"}  # retargeting keeps every const
    for pos in range(len(body) - 1, -1, -1):
        flush = _flush(body[pos], body, consts) if isinstance(body[pos], While) else None
        if flush is None:
            continue
        temp, shadow = flush
        if _qualifies(func, body, pos, temp, shadow, zeroed):
            body = [_retarget(s, temp, shadow) for k, s in enumerate(body) if k != pos]
            sizes.update(_sizes(body, temp))
    if len(body) == len(func.block.body):
        return func
    block = rename_block(Block(func.block.params, tuple(body), func.block.results), sizes)
    return Func(func.name, block, func.filename, func.arg_names)


def _sizes(body: list[Stmt], temp: Var) -> dict[str, Var]:
    """{`dim T, k`: the size T was allocated with}: the extents the retargeted code still
    asks of T (negative indices wrap by them), so that the dead allocation goes."""
    alloc = next(s for s in body if isinstance(s, Op) and s.outs and s.outs[0] == temp)
    return {t.outs[0].name: alloc.args[t.attrs[0]] for top in body for t in
            [top] + [t for b in blocks_of(top) for t in walk(b)]
            if isinstance(t, Op) and t.op == "dim" and t.args[0] == temp}


def _flush(s: Stmt, body: list[Stmt], consts: dict) -> tuple[Var, Var] | None:
    """(T, S) if `s` is the loop nest `S[idx] += c * T[idx]` over every index of T (in
    order, each counter from 0 by 1 to T's extent), c the constant 1.0. `consts`: {name:
    value} of the function's constants."""
    dims = {t.outs[0].name: (t.args[0], t.attrs[0]) for t in body
            if isinstance(t, Op) and t.op == "dim"}
    counters: list[Var] = []
    bounds: list[Var] = []
    while isinstance(s, While):
        c = counted(s)
        if c is None or c[4] != "lt" or consts.get(c[1].name) != 0 \
                or (c[3] if isinstance(c[3], int) else consts.get(c[3].name)) != 1:
            return None
        counters.append(s.body.params[c[0]])
        bounds.append(c[2])
        inner = [t for t in s.body.body if not (isinstance(t, Op) and t.op in ("add", "const"))]
        if len(inner) == 1 and isinstance(inner[0], While):
            s = inner[0]
            continue
        ops = [t.op if isinstance(t, Op) else "" for t in inner]
        if ops == ["load", "mul", "strongzero", "strongzero", "accum"]:
            inner = _unguarded(inner)  # with cotangent 1, `0 + guarded(T)` is `0 + T`
        elif ops != ["load", "mul", "accum"]:
            return None
        if inner is None:
            return None
        load, mul, acc = inner
        temp = load.args[0]
        if tuple(load.args[1:]) != tuple(counters) or tuple(acc.args[1:-1]) != tuple(counters) \
                or acc.args[-1] != mul.outs[0] or load.outs[0] not in mul.args \
                or any(dims.get(n.name) != (temp, k) for k, n in enumerate(bounds)):
            return None
        one = mul.args[0] if mul.args[1] == load.outs[0] else mul.args[1]
        if consts.get(one.name) != 1.0 or one.type != "f64":
            return None
        return temp, acc.args[0]
    return None


def _unguarded(inner: list) -> list | None:
    """The flush `S[idx] += strongzero(T[idx], strongzero(ct, ct * T[idx]))` of a kernel
    with strong zeros (fused.py `_times`) as `S[idx] += ct * T[idx]`, or None when the
    guards are not those. With `ct` 1.0 (checked by the caller) the guards change only a
    -0.0 into +0.0, which adds the same into a sum started at +0 (never -0)."""
    load, mul, by_ct, by_term, acc = inner
    if by_ct.args != (mul.args[0], mul.outs[0]) or by_term.args != (load.outs[0], by_ct.outs[0]) \
            or acc.args[-1] != by_term.outs[0]:
        return None
    return [load, mul, Op(acc.outs, acc.op, acc.args[:-1] + mul.outs, acc.attrs, acc.loc)]


def _qualifies(func: Func, body: list[Stmt], pos: int, temp: Var, shadow: Var,
               zeroed: set[str]) -> bool:
    top = {o.name: (k, s) for k, s in enumerate(body) for o in s.outs}
    made = top.get(temp.name)
    if made is None or not isinstance(made[1], Op) or made[1].op != "alloc" \
            or temp in func.block.results:
        return False
    family, root = _views(body, shadow)
    if not _contiguous(body, shadow, root):
        return False
    if not (root.name in zeroed or isinstance(top.get(root.name, (0, None))[1], Op)
                            and top[root.name][1].op == "alloc"):
        return False
    defs = {o.name: t for top in body for t in [top] + [t for b in blocks_of(top)
                                                        for t in walk(b)]
            if isinstance(t, Op) for o in t.outs}
    first = None  # the first top-level statement adding into T
    adds = family_adds = 0
    for k, s in enumerate(body):
        if k == pos:
            continue
        found = _uses(s, [], temp, family, defs)
        if found is None:
            return False
        n_temp, n_family, reads = found
        if n_temp and first is None:
            first = k
        if n_temp and n_family:
            return False  # adds into two views of B in one loop may overlap: LLVM would
            #               keep it scalar (Rosenbrock's x[1:] and x[:-1]); T keeps them apart
        if reads and k < pos:
            return False  # B is read before the flush: it would see the moved adds
        adds += n_temp + n_family
        family_adds += n_family
    if first is None or family_adds and adds > _MAX_ADDS:
        return False
    defined = top.get(shadow.name)
    return defined is None or defined[0] < first   # S exists where the adds move to


def _views(body: list[Stmt], shadow: Var) -> tuple[set[str], Var | None]:
    """(the names of the root array of `shadow` and every top-level view of it, the root)."""
    parent = {s.outs[0].name: s.args[0] for s in body
              if isinstance(s, Op) and s.op in VIEW_OPS}
    root = shadow
    while root.name in parent:
        root = parent[root.name]
    family = {root.name}
    for s in body:  # in order: a view of a view follows it
        if isinstance(s, Op) and s.op in VIEW_OPS and s.args[0].name in family:
            family.add(s.outs[0].name)
    for s in body:
        for t in [s] + [t for b in blocks_of(s) for t in walk(b)]:
            if isinstance(t, Op) and t.op in VIEW_OPS and t.args[0].name in family \
                    and t.outs[0].name not in family:
                return family, None  # a view made inside a loop or branch: not followed
    return family, root


def _contiguous(body: list[Stmt], shadow: Var, root: Var | None) -> bool:
    """Whether `shadow` is `root` or a block of its rows made by `slice` (module docstring:
    adding through a view with steps or reversed axes is slower than the temporary)."""
    made = {s.outs[0].name: s for s in body if isinstance(s, Op) and s.op in VIEW_OPS}
    v = shadow
    while root is not None and v.name != root.name:
        if made[v.name].op != "slice":
            return False
        v = made[v.name].args[0]
    return root is not None


def _uses(s: Stmt, loops: list[While], temp: Var, family: set[str], defs: dict):
    """(adds into T, adds into B's family, whether B's family is read) in statement `s`,
    each add counted once when it reaches an element at most once, else as `_MANY`; None
    when `s` uses T or B's family otherwise."""
    if isinstance(s, Op):
        arrays = {a.name for a in s.args}
        if s.op == "dim" or s.op in VIEW_OPS and s.args[0].name in family:
            return 0, 0, False
        if s.op == "accum" and s.args[0].name in family | {temp.name}:
            if arrays - {s.args[0].name} & (family | {temp.name}):
                return None
            n = 1 if _once(s, loops, defs) else _MANY
            return (n, 0, False) if s.args[0] == temp else (0, n, False)
        if s.op == "load" and s.args[0].name in family:
            return 0, 0, True
        if arrays & (family | {temp.name}):
            return None  # stored into, passed whole, or T read
        return 0, 0, False
    total = [0, 0, False]
    if isinstance(s, While):
        loops = loops + [s]
    for b in blocks_of(s):
        for t in b.body:
            found = _uses(t, loops, temp, family, defs)
            if found is None:
                return None
            total = [total[0] + found[0], total[1] + found[1], total[2] or found[2]]
    return tuple(total)


def _once(acc: Op, loops: list[While], defs: dict) -> bool:
    """Whether `acc` reaches each element at most once: every enclosing loop counts (a
    counter stepping by a fixed amount), and its counter is one of the indices as it is, or
    normalized (`x[i]` in a loop of the user's) when it starts at a constant >= 0 and counts
    up, so that the normalized index is the counter itself."""
    raw, normed = set(), set()
    for v in acc.args[1:-1]:
        st = defs.get(v.name)
        if st is not None and st.op in ("normidx", "wrapidx"):
            normed.add(st.args[0].name)
        else:
            raw.add(v.name)
    for loop in loops:
        c = counted(loop)
        name = loop.body.params[c[0]].name if c is not None else None
        if name is None or name not in raw and not (
                name in normed and c[4] == "lt" and _nonnegative(defs.get(c[1].name))):
            return False
    return True


def _nonnegative(st: Op | None) -> bool:
    return st is not None and st.op == "const" and isinstance(st.attrs[0], int) \
        and st.attrs[0] >= 0


def _retarget(s: Stmt, temp: Var, shadow: Var) -> Stmt:
    """`s` with every `accum` into `temp` made into `shadow`."""
    if isinstance(s, Op):
        if s.op == "accum" and s.args[0] == temp:
            return Op(s.outs, s.op, (shadow,) + s.args[1:], s.attrs, s.loc)
        return s
    if isinstance(s, If):
        return If(s.outs, s.cond, _retarget_block(s.then, temp, shadow),
                  _retarget_block(s.orelse, temp, shadow), s.loc)
    return While(s.outs, s.inits, _retarget_block(s.cond, temp, shadow),
                 _retarget_block(s.body, temp, shadow), s.loc, s.note, s.unrolled)


def _retarget_block(b: Block, temp: Var, shadow: Var) -> Block:
    return Block(b.params, tuple(_retarget(s, temp, shadow) for s in b.body), b.results)
