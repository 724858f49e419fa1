"""Frontend: a Python function's source, plus its argument types, to a typed SSA `Func`.

The source comes from `inspect`; globals and closure variables are resolved at compile time
(modules such as `math`, functions, and int/float/bool constants, whose values are frozen
into the compiled code). Python semantics are kept: int/int true division gives a float,
`//` and `%` round toward -inf, `and`/`or`/`x if c else y` and chained comparisons
short-circuit (they become `If` regions), bools act as ints in arithmetic.
Anything outside the supported subset raises `PyadSyntaxError` pointing at the construct.

`Lowering` composes the collaborators that lower one function body, all working on one
`Context` (context.py: the builder, the environment, fresh names, the source):

    stmts      control.py   statements, if regions, exits (break/continue/return)
    loops      loops.py     while and for-range loops, loop-type widening
    iteration  iteration.py for over arrays, lists, tuples, enumerate/zip/reversed
    lists      lists.py     lists, comprehensions (listscan.py: what a block does to lists)
    folds      folds.py     sum/min/max/any/all/math.fsum of sequences
    exprs      exprs.py     expressions, operators, comparisons, scalar values
    functions  functions.py calls: routing, and the op table's spellings
               special.py   scipy.special's functions
    arrays     arrays.py    indexing, stores, views, attributes, creation
    arrayops   arrayops.py  whole-array operations, fused elementwise loops
    products   products.py  np.dot, @, np.matmul
    calls      calls.py     the user's functions (inlined), custom rules
    closures   closures.py  lambda, nested def, functions as values, functools.partial
               recursion.py recursive calls, lowered on their own
"""
from __future__ import annotations

import ast
import types
from typing import Any

from .. import pytree
from ..errors import PyadTypeError
from .arrayops import ArrayOps
from .products import Products
from ..ir.builder import Builder, NameGen
from .calls import CallLowering
from .control import RETVAL, Statements, always_returns, refused_statement
from .arrays import ArrayLowering
from .creation import Creation
from .einsum import Einsum
from .gathers import Gathers
from .logical import Logical
from .composites import Composites
from .reductions import Reductions
from .positions import Positions
from .sorting import Sorting
from .calculus import Calculus
from .ufuncs import Ufuncs
from .norms import Norms
from .linalg import LinearAlgebra
from .numpyfuncs import NumpyFunctions
from .indexing import Indexing
from .context import APPENDED, Context, DynList, PyList, RangeVal, SliceVal, Source, Value, \
    location_of, parameters
from .recover import display_name
from .exprs import Expressions
from .functions import Functions
from .loops import Loops
from .lists import Lists
from .folds import Folds
from .splits import Splits
from .iteration import Iteration
from .closures import Closures, local_names
from . import records
from ..ir.nodes import Block, Func, Var
from ..ir import sharing
from ..ir.memory import constant_writes, param_writes, writes_into


class Lowering:
    """Lowers one function body for one tuple of argument types. With `parent` (a
    Lowering), the body is inlined into the parent's IR (calls.py)."""

    def __init__(self, fn: types.FunctionType, arg_types: tuple[str, ...] = (),
                 parent: "Lowering | None" = None, callees: dict | None = None,
                 nested: "tuple[ast.AST, Lowering] | None" = None, at=None) -> None:
        if nested is not None:   # a lambda or nested def of another body (closures.py)
            fdef, src = nested[0], nested[1].ctx.src
        else:
            src = Source(fn, parent.ctx.src.filename if parent else None, at)
            fdef = src.tree.body[0]
            if not isinstance(fdef, ast.FunctionDef):
                fdef = _the_lambda(src, fn, fdef)
        self.fn, self.fdef, self.arg_types = fn, fdef, arg_types
        if parent is not None:
            pc = parent.ctx
            self.ctx = Context(fn, src, pc.names, pc.b, pc, pc.callees)
        else:
            names = NameGen()
            self.ctx = Context(fn, src, names, Builder(names),
                               None, {} if callees is None else callees)
        if nested is not None:
            self.ctx.local_names = local_names(fdef)
        self.stmts = Statements(self)
        self.loops = Loops(self)
        self.lists = Lists(self)
        self.folds = Folds(self)
        self.iteration = Iteration(self)
        self.exprs = Expressions(self)
        self.functions = Functions(self)
        self.arrays = ArrayLowering(self)
        self.arrayops = ArrayOps(self)
        self.products = Products(self)
        self.indexing = Indexing(self)
        self.creation = Creation(self)
        self.einsum = Einsum(self)
        self.numpyfuncs = NumpyFunctions(self)
        self.linalg = LinearAlgebra(self)
        self.gathers = Gathers(self)
        self.logical = Logical(self)
        self.composites = Composites(self)
        self.splits = Splits(self)
        self.reductions = Reductions(self)
        self.positions = Positions(self)
        self.sorting = Sorting(self)
        self.calculus = Calculus(self)
        self.ufuncs = Ufuncs(self)
        self.norms = Norms(self)
        self.calls = CallLowering(self)
        self.closures = Closures(self)
        self.result: Value | None = None
        self.recursive = False  # a recursive callee lowered on its own (`separate`)

    # ------------------------------------------------------------------ other bodies
    def inlined(self, fn: types.FunctionType, at=None) -> "Lowering":
        """A lowering of `fn`'s body into this one's IR (its parameters still unbound); with
        `at` (a Loc), every statement of it is located there (context.Source)."""
        return Lowering(fn, parent=self, at=at)

    def nested(self, node: ast.AST, defining: "Lowering") -> "Lowering":
        """A lowering of the lambda or nested def `node` of `defining`'s body into this one's
        IR (closures.py)."""
        return Lowering(defining.fn, parent=self, nested=(node, defining))

    def separate(self, fn: types.FunctionType, arg_types: tuple[str, ...]) -> "Lowering":
        """A lowering of `fn` as a function of its own (a recursive callee), sharing this
        compile's recursive callees."""
        sub = Lowering(fn, arg_types, callees=self.ctx.callees)
        sub.recursive = True
        return sub

    # ------------------------------------------------------------------ entry points
    def run(self, signature_checked: bool = False, treedef=None) -> Func:
        """The Func; `signature_checked` when called with arguments bound by `calls.bind`
        (defaults filled in) rather than from Python; `treedef` when bound by the API
        (api/binding.py: keywords, defaults, `*args`, containers)."""
        ctx, a = self.ctx, self.fdef.args
        if treedef is not None:
            params = records.bind_parameters(ctx, self.fdef, self.arg_types, treedef)
        elif not signature_checked and (a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs
                                        or a.defaults):
            raise ctx.error(self.fdef, "unsupported signature: only plain positional "
                            "parameters without defaults are supported")
        else:
            params = []
            for arg, t in zip(parameters(a), self.arg_types):
                v = Var(ctx.names.fresh(arg.arg), t)
                params.append(v)
                ctx.env[arg.arg] = v
        self.result = self.returned(self.body())
        block = Block(tuple(params), tuple(ctx.b.stmts), tuple(pytree.leaves(self.result)))
        self.refuse_writes(block)
        # runtime errors name the file as located errors do (a notebook cell as `Cell In[3]`)
        names = tuple(x.arg for x in parameters(a)) if treedef is None else \
            tuple(p.name for p in params)
        name = "lambda" if isinstance(self.fdef, ast.Lambda) else self.fdef.name
        return Func(name, block, display_name(ctx.src.filename), names)

    def refuse_writes(self, block: Block) -> None:
        """Refuse the writes whose effect would differ from CPython's: into arguments, into
        global arrays, into copies of list rows, and writes that NumPy's views would show
        and pyad's copies do not (ir/sharing.py)."""
        ctx = self.ctx
        for store, param in param_writes(block):
            raise ctx.src.error_at(
                store.loc, f"cannot assign into argument array `{param.name}`: a "
                f"{'recursive' if self.recursive else 'compiled'} function never modifies "
                "its arguments",
                hint=f"work on a copy: `{param.name} = {param.name}.copy()`")
        for store, const in constant_writes(block):
            name = const.outs[0].name.split(".")[0]
            raise ctx.src.error_at(
                store.loc, f"cannot assign into the global array `{name}`: pyad freezes "
                "global arrays as constants when it compiles", hint=f"work on a copy: "
                f"`{name.lower()} = {name}.copy()`")
        for store, row in writes_into(block, set(ctx.row_copies)):
            own, read_at = ctx.row_copies[row]
            if id(store) not in own:
                raise ctx.src.error_at(
                    store.loc, "cannot write into a row of a list whose length is known at "
                    f"run time only (the row read at line {read_at.line}): pyad reads such "
                    "rows as copies, so the write would not reach the list",
                    cls=PyadTypeError, hint="keep the rows in a 2-D array (np.zeros((n, m)))"
                    " and write `rows[i, j] = v`, or build the row before appending it")
        order = sharing.Order(block) if ctx.shared_copies else None
        for own, copy, source, what, made_at in ctx.shared_copies:
            found = sharing.conflicts(order, copy.name, source.name, own,
                                      frozenset(ctx.list_stores))
            if found is None:
                continue
            write, read = found
            seen = f"the read at line {read.loc.line}" if read is not None and \
                read.loc is not None else "the returned value"
            if what == APPENDED:
                raise ctx.src.error_at(
                    write.loc, f"this write would be seen through the list in CPython but "
                    f"not in pyad: `{what}` at line {made_at.line} stores a copy of `a` "
                    "(the list's length is known at run time only), CPython's list holds `a` "
                    f"itself, so {seen} would differ from CPython's", cls=PyadTypeError,
                    hint="append a copy, `xs.append(a.copy())`, or do the write before it")
            raise ctx.src.error_at(
                write.loc, f"this write would be seen through a view in NumPy but not in "
                f"pyad: NumPy's `{what}` at line {made_at.line} may share memory with "
                f"`a`, pyad's result is a new array, so {seen} would differ from NumPy's",
                cls=PyadTypeError, hint=f"copy explicitly, `{what}.copy()`, or do the "
                "write before it")

    def returned(self, v: Value) -> Value:
        """The compiled function's result: lists come back as lists (fixed length) or as
        arrays (run-time length: the items stacked); a range as the array of its items."""
        if isinstance(v, (DynList, RangeVal)):   # a range: its items, as a list of them
            return self.arrays.array(v, self.fdef)
        if isinstance(v, SliceVal):
            raise self.ctx.error(self.fdef, "a compiled function cannot return a slice",
                                 cls=PyadTypeError, hint="return its bounds as numbers")
        if isinstance(v, PyList):
            return pytree.Record("list", None, (), tuple(self.returned(x) for x in v))
        if isinstance(v, pytree.Record):
            return v.with_children(self.returned(x) for x in v.children)
        if isinstance(v, tuple):
            return tuple(self.returned(x) for x in v)
        return v

    def body(self) -> Value:
        """Lower the function body (parameters already bound in `ctx.env`); the returned
        value."""
        if isinstance(self.fdef, ast.Lambda):   # `sq = lambda y: y * y` of a module
            return self.arrayops.materialize(self.exprs.expr(self.fdef.body))
        body = list(self.fdef.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        if not always_returns(body):
            refused = refused_statement(body)
            if refused is not None:  # the reason the paths do not all return
                raise self.ctx.unsupported(refused)
            if self.ctx.parent is not None:   # an inlined helper: None, as in CPython
                end = body[-1] if body else self.fdef
                body = body + [ast.Return(ast.Constant(None, **location_of(end)),
                                          **location_of(end))]
        if not always_returns(body):
            raise self.ctx.error(self.fdef, f"function {self.fdef.name} does not return a "
                                 "value on every path", hint="end every path with a return "
                                 "statement returning a number or a tuple of numbers")
        self.stmts.stmts(body)
        if RETVAL not in self.ctx.env:   # every path raises (decided when compiling)
            return self.ctx.b.const(0.0)  # never seen: the raise comes first
        return self.ctx.env[RETVAL]


def lower(fn: types.FunctionType, arg_types: tuple[str, ...],
          treedef=None) -> tuple[Func, Any]:
    """Lower `fn` for `arg_types`, the types of the leaves of its parameters' values, of
    structure `treedef` (records.py; None: one leaf per positional parameter). Returns the
    Func and the shape of its return value (an int index into the results, or a tree of
    them) to rebuild Python values. Recursive callees (`ir.callees_of(func)`) are left as
    lowered, for the pipeline to simplify."""
    lw = Lowering(fn, arg_types)
    func = lw.run(treedef=treedef)
    return func, pytree.indexed(lw.result)


def _the_lambda(src: Source, fn: types.FunctionType, stmt: ast.stmt) -> ast.Lambda:
    """The `lambda` a function made by one is compiled from (`sq = lambda y: y * y` at
    module level, `pyad.jit_grad(lambda x: ...)`): the only one in its statement."""
    found = [n for n in ast.walk(stmt) if isinstance(n, ast.Lambda)]
    if len(found) > 1:   # the items of a display: the one on the function's line
        found = [n for n in found if src.loc(n).line == fn.__code__.co_firstlineno]
    if fn.__name__ != "<lambda>" or not found:
        raise src.error(stmt, "pyad compiles plain `def` functions and lambdas")
    if len(found) > 1:
        where = src.loc(stmt)
        raise src.error(stmt, f"line {where.line} of {display_name(src.filename)} makes "
                        "several lambdas: pyad cannot tell which one it is given",
                        hint="give the function a line of its own, or a def")
    return found[0]
