"""Frontend, which names may hold an elementwise expression unevaluated (a `Lazy`,
arrayops.py) until the one statement that reads them, so that

    diff = pos[:, None, :] - pos[None, :, :]
    dist = np.sqrt(np.sum(diff * diff, axis=2))
    return np.sum(w * dist)

is one loop nest with no temporary array, as if written as one expression.

A name `x` bound by `x = <elementwise expression>` in a statement list is deferred when
- `x` is bound once in the whole function (no other assignment, `+=`, loop target, `del`);
- every read of `x` is in one later statement of the same list, a simple one (assignment,
  `return`, expression), and none is inside a lambda, nested def or comprehension (which
  could run it many times);
- a value read more than once there is not put into a list, tuple, dict or set, nor
  passed to a function of the user's (`L = [x, x]` holds one array twice: each read would
  make an array of its own);
- an expression whose elements are computed by a loop (an einsum contraction) is read once
  (`d * d` would run the loop twice).
Everything else is evaluated where it is bound, as before.

A deferred value reads arrays when its consumer runs, so it must see the memory it would
have seen where it was bound: every statement that may write memory (a subscript
assignment, an in-place `+=`, a call of a user function or of a method not known to be
pure, any compound statement) first evaluates the values still deferred (`Statements.stmts`
calls `flush`). The values are then the ones CPython computes.
"""
from __future__ import annotations

import ast
import builtins

from ..errors import PyadError
from ..ir.nodes import I64, Block, Op, Var, While, walk
from ..ir.ops import CHEAP

#: array methods that never write memory
PURE_METHODS = frozenset({
    "sum", "mean", "max", "min", "prod", "std", "var", "reshape", "ravel", "flatten",
    "transpose", "copy", "dot", "astype", "cumsum", "cumprod", "argmax", "argmin", "squeeze",
    "clip", "round", "conj", "item", "all", "any", "trace", "diagonal", "swapaxes"})
#: builtins that never write memory
PURE_BUILTINS = frozenset({"len", "float", "int", "abs", "min", "max", "range", "sum", "bool",
                           "round", "pow", "divmod"})
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr)
_SCOPES = (ast.Lambda, ast.FunctionDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


class Deferral:
    """The deferral rules for one function body `fdef` (see the module docstring)."""

    def __init__(self, fdef: ast.AST, ctx) -> None:
        self.ctx = ctx
        self.bound: dict[str, int] = {}
        self.reads: dict[str, list[tuple[ast.Name, bool]]] = {}
        self._scan(fdef, False)

    def _scan(self, node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Name):
                if isinstance(child.ctx, ast.Load):
                    self.reads.setdefault(child.id, []).append((child, nested))
                else:
                    self.bound[child.id] = self.bound.get(child.id, 0) + 1
            self._scan(child, nested or isinstance(child, _SCOPES))

    def consumer(self, name: str, stmts: list[ast.stmt], i: int) -> ast.stmt | None:
        """The statement of `stmts` after `stmts[i]` (which binds `name`) that reads the
        deferred value, or None when `name` must be evaluated at once."""
        reads = self.reads.get(name, [])
        if self.bound.get(name) != 1 or not reads or any(nested for _, nested in reads):
            return None
        ids = {id(n) for n, _ in reads}
        for s in stmts[i + 1:]:
            inside = {id(n) for n in ast.walk(s)} & ids
            if inside:
                if inside != ids or not isinstance(s, _SIMPLE):
                    return None
                return s if len(ids) == 1 or not self._kept(s, ids) else None
        return None

    def _kept(self, s: ast.stmt, ids: set[int]) -> bool:
        """Whether a read (node ids `ids`) in `s` is inside a container display, a starred
        or keyword argument, or a call of a function of the user's: its array may be kept
        and compared with the other reads' by identity."""
        def walk(node: ast.AST, kept: bool) -> bool:
            if id(node) in ids and kept:
                return True
            if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Starred,
                                 ast.keyword)):
                kept = True
            elif isinstance(node, ast.Call) and not self._pure_call(node):
                kept = True
            return any(walk(c, kept) for c in ast.iter_child_nodes(node))
        return walk(s, False)

    def read_count(self, name: str) -> int:
        return len(self.reads.get(name, []))

    def pure(self, s: ast.stmt) -> bool:
        """Whether `s` certainly writes no memory (deferred values may pass it)."""
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if not all(_names_only(t) for t in targets):
                return False
        elif not isinstance(s, (ast.Return, ast.Expr, ast.Pass)):
            return False
        return all(self._pure_call(c) for c in ast.walk(s) if isinstance(c, ast.Call))

    def _pure_call(self, call: ast.Call) -> bool:
        if any(k.arg == "out" for k in call.keywords):
            return False
        f = call.func
        if isinstance(f, ast.Name):
            return f.id in PURE_BUILTINS and self._static(f) is getattr(builtins, f.id)
        if not isinstance(f, ast.Attribute):
            return False
        root = f.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if self._local(root.id):
            return f.attr in PURE_METHODS
        module = getattr(self._static(root), "__name__", None)
        # NumPy's and math's functions write nothing but np.add.at's first argument
        return isinstance(module, str) and module.split(".")[0] in ("numpy", "math") \
            and f.attr != "at"

    def _local(self, name: str) -> bool:
        return name in self.ctx.env or self.ctx.declares(name)

    def _static(self, node: ast.Name) -> object:
        """The module-level object a non-local name refers to (None if it is local or
        undefined)."""
        if self._local(node.id):
            return None
        try:
            return self.ctx.resolve_static(node).obj
        except PyadError:   # an undefined name: its own error comes when it is lowered
            return None


def _names_only(t: ast.expr) -> bool:
    if isinstance(t, ast.Name):
        return True
    return isinstance(t, (ast.Tuple, ast.List)) and all(_names_only(e) for e in t.elts)


def _one_element(ctx, v) -> list:
    """The statements that compute one element of the Lazy `v` (emitted into a scratch
    builder)."""
    b = ctx.builder()
    with ctx.emitting(b):
        v.gen([Var(f"probe{k}", I64) for k in range(len(v.dims))])
    return list(walk(Block((), tuple(b.stmts), ())))


def loops_per_element(ctx, v) -> bool:
    """Whether an element of `v` is computed by a loop (a reduction inside, as in an einsum
    contraction): reading it twice would run the loop twice."""
    return any(isinstance(s, While) for s in _one_element(ctx, v))


def cheap(ctx, v) -> bool:
    """Whether an element of `v` takes only cheap ops (ops.CHEAP: loads, + - *,
    comparisons, selects): recomputing it costs about what reading it back would."""
    return all(isinstance(s, Op) and s.op in CHEAP for s in _one_element(ctx, v))
