"""Frontend: a Python function's source, plus its argument types, to a typed SSA `Func`.

The source comes from `inspect`; globals and closure variables are resolved at compile time
(modules such as `math`, functions, and int/float/bool constants, whose values are frozen
into the compiled code). Python semantics are kept: int/int true division gives a float,
`//` and `%` round toward -inf, `and`/`or`/`x if c else y` and chained comparisons
short-circuit (they become `If` regions), bools act as ints in arithmetic.
Anything outside the supported subset raises `PyadSyntaxError` pointing at the construct.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import math
import textwrap
import types
from dataclasses import dataclass
from typing import Any, Union

from .builder import Builder, NameGen
from .control import RETVAL, ControlFlow, Undefined, always_returns
from .errors import PyadSyntaxError, PyadTypeError
from .arrayops import ArrayOps
from .calls import CallLowering
from .frontend_arrays import ArrayLowering, numpy_module
from .ir import BOOL, F64, I64, Block, Func, If, Loc, Var, is_array
from .memory import param_writes
from .ops import OPS

Value = Union[Var, tuple]  # a tuple holds Values (compile-time tuples)


@dataclass(frozen=True)
class Static:
    """A compile-time object: a module, a function, or another non-numeric global."""

    obj: Any
    name: str


_CONSTRUCT_NAMES = {
    ast.For: "for loop", ast.AsyncFor: "async for loop", ast.While: "while loop",
    ast.With: "with statement", ast.Try: "try statement", ast.Raise: "raise statement",
    ast.Assert: "assert statement", ast.Global: "global statement",
    ast.Nonlocal: "nonlocal statement", ast.Delete: "del statement", ast.Import: "import",
    ast.ImportFrom: "import", ast.ClassDef: "class definition",
    ast.FunctionDef: "nested function definition", ast.Lambda: "lambda",
    ast.ListComp: "list comprehension", ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension", ast.GeneratorExp: "generator expression",
    ast.List: "list", ast.Dict: "dict", ast.Set: "set", ast.JoinedStr: "f-string",
    ast.Starred: "starred expression", ast.Await: "await", ast.Yield: "yield",
    ast.YieldFrom: "yield from", ast.NamedExpr: "assignment expression (:=)",
    ast.Slice: "slice", ast.Break: "break statement", ast.Continue: "continue statement",
}
_HINTS = {
    ast.ListComp: "write the loop out with an accumulator",
    ast.GeneratorExp: "write the loop out with an accumulator",
    ast.Lambda: "define a module-level function instead",
}
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}
_OPERATOR_NAMES = {ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
                   ast.LShift: "<<", ast.RShift: ">>", ast.Invert: "~"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}
_CMP_SPELLING = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def _spelled(spelling: str) -> Any:
    module, _, attr = spelling.partition(".")
    return getattr({"math": math}[module], attr)


# math function object -> op name, from the op table's spellings
_FUNC_OPS: dict[int, str] = {id(_spelled(s)): row.name for row in OPS.values() for s in row.spell}


class _Source:
    """The function's source text and the mapping from its AST back to the file."""

    def __init__(self, fn: types.FunctionType, top_file: str | None = None) -> None:
        try:
            lines, start = inspect.getsourcelines(fn)
        except (OSError, TypeError) as exc:
            raise PyadSyntaxError(f"cannot read the source of {fn.__qualname__}: {exc}",
                                  hint="pyad compiles functions defined in a .py file") from None
        self.filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
        self.first_line = max(start, 1)
        text = "".join(lines)
        self.indent = len(lines[0]) - len(lines[0].lstrip())
        self.lines = lines
        self.tree = ast.parse(textwrap.dedent(text))
        # locations in code inlined from another file carry that file
        self.loc_file = self.filename if top_file not in (None, self.filename) else None

    def loc(self, node: ast.AST) -> Loc:
        line = self.first_line + getattr(node, "lineno", 1) - 1
        col = getattr(node, "col_offset", 0) + self.indent
        end = getattr(node, "end_col_offset", None)
        same_line = getattr(node, "end_lineno", None) == getattr(node, "lineno", None)
        return Loc(line, col, end + self.indent if end is not None and same_line else None,
                   self.loc_file)

    def error(self, node: ast.AST, message: str, hint: str = "", cls=PyadSyntaxError):
        return self.error_at(self.loc(node), message, hint, cls)

    def error_at(self, loc: Loc, message: str, hint: str = "", cls=PyadSyntaxError):
        if loc.file is not None and loc.file != self.filename:  # inlined from another file
            return cls(message, filename=loc.file, line=loc.line, col=loc.col,
                       end_col=loc.end_col, source_line=linecache.getline(loc.file, loc.line),
                       hint=hint)
        idx = loc.line - self.first_line
        src = self.lines[idx] if 0 <= idx < len(self.lines) else ""
        return cls(message, filename=self.filename, line=loc.line, col=loc.col,
                   end_col=loc.end_col, source_line=src, hint=hint)


class Lowering(ControlFlow, ArrayLowering, ArrayOps, CallLowering):
    """Lowers one function body for one tuple of argument types (statements: control.py).
    With `parent`, lowers a called function into the parent's IR (calls.py)."""

    def __init__(self, fn: types.FunctionType, arg_types: tuple[str, ...] = (),
                 parent: "Lowering | None" = None, callees: dict | None = None) -> None:
        self.fn = fn
        self.src = _Source(fn, parent.src.filename if parent else None)
        fdef = self.src.tree.body[0]
        if not isinstance(fdef, ast.FunctionDef):
            raise self.src.error(fdef, "pyad compiles plain `def` functions")
        self.fdef = fdef
        self.arg_types = arg_types
        self.parent = parent
        self.names = parent.names if parent else NameGen()
        self.b = parent.b if parent else Builder(self.names)
        # recursive functions met in this compile (recursion.py), shared with callees
        self.callees = parent.callees if parent else ({} if callees is None else callees)
        self.env: dict[str, Value | Undefined] = {}
        self.loop_depth = 0
        self._trial_shapes: dict = {}
        self.closure = {}
        if fn.__closure__:
            self.closure = {name: cell.cell_contents for name, cell
                            in zip(fn.__code__.co_freevars, fn.__closure__)}

    # ------------------------------------------------------------------ entry point
    def run(self, signature_checked: bool = False) -> Func:
        """The Func; `signature_checked` when called with arguments bound by `calls.bind`
        (defaults filled in) rather than from Python."""
        a = self.fdef.args
        if not signature_checked and (a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs
                                      or a.defaults):
            raise self.src.error(self.fdef, "unsupported signature: only plain positional "
                                 "parameters without defaults are supported")
        params = []
        for arg, t in zip(a.args, self.arg_types):
            v = Var(self.names.fresh(arg.arg), t)
            params.append(v)
            self.env[arg.arg] = v
        result = self.body()
        self.result = result
        results = tuple(_flatten(result))
        block = Block(tuple(params), tuple(self.b.stmts), results)
        for store, param in param_writes(block):
            raise self.src.error_at(
                store.loc, f"cannot assign into argument array `{param.name}`: a compiled "
                "function never modifies its arguments",
                hint=f"work on a copy: `{param.name} = {param.name}.copy()`")
        return Func(self.fdef.name, block, self.src.filename, tuple(x.arg for x in a.args))

    def body(self) -> Value:
        """Lower the function body (parameters already bound in `env`); the returned value."""
        body = list(self.fdef.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        if not always_returns(body):
            raise self.src.error(self.fdef, f"function {self.fdef.name} does not return a value "
                                 "on every path", hint="end every path with a return "
                                 "statement returning a number or a tuple of numbers")
        self.stmts(body)
        return self.env[RETVAL]

    # ------------------------------------------------------------------ expressions
    def expr(self, node: ast.expr) -> Value:
        saved = self.b.loc
        self.b.loc = self.src.loc(node)
        try:
            return self._expr(node)
        finally:
            self.b.loc = saved

    def _expr(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant):
            return self.constant(node.value, node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.Attribute):
            if self.is_local(node.value):
                v = self.materialize(self.expr(node.value))
                if isinstance(v, Var) and is_array(v.type):
                    return self.array_attribute(v, node)
                raise self.src.error(node, f"unsupported attribute access `.{node.attr}` on a "
                                     "value", hint="only attributes of modules (math.pi, "
                                     "math.exp) and arrays (a.shape, a.T) are supported")
            return self.static_value(self.resolve_static(node), node)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)
        if isinstance(node, ast.UnaryOp):
            return self.unaryop(node)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node, node.values)
        if isinstance(node, ast.Compare):
            left = self.expr(node.left)
            if type(node.ops[0]) not in _CMPOPS:
                return self.compare(node, self.scalar(left, node.left), 0)  # raises
            right = self.expr(node.comparators[0])
            if self.is_arrayish(left) or self.is_arrayish(right):
                return self.array_compare(node, left, right)
            return self.compare(node, self.scalar(left, node.left), 0, right)
        if isinstance(node, ast.IfExp):
            cond = self.truth(self.expr(node.test), node.test)
            return self.branch(cond, lambda: self.expr(node.body), lambda: self.expr(node.orelse),
                               node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Tuple):
            return tuple(self.materialize(self.expr(e)) for e in node.elts)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        raise self.unsupported(node)

    def constant(self, value: Any, node: ast.AST) -> Var:
        if isinstance(value, bool):
            return self.b.const(value, BOOL)
        if isinstance(value, int):
            if not -2**63 <= value < 2**63:
                raise self.src.error(node, "integer constant does not fit in 64 bits")
            return self.b.const(value, I64)
        if isinstance(value, float):
            return self.b.const(value, F64)
        raise self.src.error(node, f"unsupported constant {value!r} of type "
                             f"{type(value).__name__}", hint="only numbers and bools are supported")

    def name(self, node: ast.Name) -> Value:
        if node.id in self.env:
            v = self.env[node.id]
            if isinstance(v, Undefined):
                raise self.src.error(node, f"`{node.id}` is not assigned on every path that "
                                     "reaches this use (it would raise UnboundLocalError)",
                                     hint=f"assign `{node.id}` before the if statement or loop")
            return v
        return self.static_value(self.resolve_static(node), node)

    def resolve_static(self, node: ast.expr) -> Static:
        if isinstance(node, ast.Name):
            if node.id in self.closure:
                return Static(self.closure[node.id], node.id)
            g = self.fn.__globals__
            if node.id in g:
                return Static(g[node.id], node.id)
            if hasattr(builtins, node.id):
                return Static(getattr(builtins, node.id), node.id)
            raise self.src.error(node, f"name `{node.id}` is not defined",
                                 hint="define it (at module level) before the first call")
        if isinstance(node, ast.Attribute):
            local = isinstance(node.value, ast.Name) and node.value.id in self.env
            if local or not isinstance(node.value, (ast.Name, ast.Attribute)):
                raise self.src.error(node, f"unsupported attribute access `.{node.attr}` on a "
                                     "value", hint="only attributes of modules (math.pi, "
                                     "math.exp) are supported on scalars")
            base = self.resolve_static(node.value)
            if not hasattr(base.obj, node.attr):
                raise self.src.error(node, f"`{base.name}` has no attribute `{node.attr}`")
            return Static(getattr(base.obj, node.attr), f"{base.name}.{node.attr}")
        raise self.unsupported(node)

    def static_value(self, s: Static, node: ast.AST) -> Value:
        if isinstance(s.obj, (bool, int, float)):
            return self.constant(s.obj, node)
        if isinstance(s.obj, tuple) and all(isinstance(x, (bool, int, float)) for x in s.obj):
            return tuple(self.constant(x, node) for x in s.obj)
        raise self.src.error(node, f"`{s.name}` ({type(s.obj).__name__}) cannot be used as a "
                             "value in a compiled function",
                             hint="only numbers, bools and tuples of them are values")

    def is_local(self, node: ast.expr) -> bool:
        """Whether `node` is a value of the function (not a module or global object)."""
        if isinstance(node, ast.Name):
            return node.id in self.env
        if isinstance(node, ast.Attribute):
            return self.is_local(node.value)
        return True

    def subscript(self, node: ast.Subscript) -> Value:
        base = self.materialize(self.expr(node.value))
        if isinstance(base, Var) and is_array(base.type):
            return self.index_array(base, node)
        if isinstance(base, tuple) and _constant_int(node.slice) is not None:
            i = _constant_int(node.slice)
            if not -len(base) <= i < len(base):
                raise self.src.error(node, "tuple index out of range", cls=PyadSyntaxError)
            return base[i]
        raise self.unsupported(node, "indexing (only a tuple with a constant index)")

    # ------------------------------------------------------------------ operators
    def binop(self, op: ast.operator, a: Value, b: Value, node: ast.AST) -> Var:
        if isinstance(op, ast.MatMult) and (self.is_arrayish(a) or self.is_arrayish(b)):
            return self.dot(a, b, node)
        if type(op) in _BINOPS and (self.is_arrayish(a) or self.is_arrayish(b)):
            return self.array_binop(op, a, b, node)
        if type(op) not in _BINOPS:
            sym = _OPERATOR_NAMES.get(type(op), type(op).__name__)
            raise self.src.error(node, f"unsupported operator `{sym}`",
                                 hint="scalars support + - * / // % **")
        a, b = self.scalar(a, node), self.scalar(b, node)
        name = _BINOPS[type(op)]
        t = _unify(_arith(a.type), _arith(b.type))
        if name == "div" or (name == "pow" and t == F64):
            t = F64
        elif name == "pow":
            name = "ipow"
        return self.b.emit(name, self.convert(a, t), self.convert(b, t))

    def unaryop(self, node: ast.UnaryOp) -> Var:
        v = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return self.b.emit("not", self.truth(v, node.operand))
        if self.is_arrayish(v):
            return self.array_unary(node.op, v, node)
        v = self.scalar(v, node)
        if isinstance(node.op, ast.USub):
            return self.b.neg(self.convert(v, _arith(v.type)))
        if isinstance(node.op, ast.UAdd):
            return self.convert(v, _arith(v.type))
        raise self.src.error(node, f"unsupported operator `{_OPERATOR_NAMES[type(node.op)]}`")

    def boolop(self, node: ast.BoolOp, values: list[ast.expr]) -> Value:
        """`a and b`: b if a is truthy else a;  `a or b`: a if a is truthy else b."""
        first = self.scalar(self.expr(values[0]), values[0])
        if len(values) == 1:
            return first
        rest = lambda: self.boolop(node, values[1:])  # noqa: E731
        keep = lambda: first  # noqa: E731
        cond = self.truth(first, values[0])
        if isinstance(node.op, ast.And):
            return self.branch(cond, rest, keep, node)
        return self.branch(cond, keep, rest, node)

    def compare(self, node: ast.Compare, left: Var, i: int, right=None) -> Var:
        op = node.ops[i]
        if type(op) not in _CMPOPS:
            raise self.src.error(node, f"unsupported comparison `{_CMP_SPELLING[type(op)]}`",
                                 hint="compare numbers with <, <=, >, >=, == or !=")
        if right is None:
            right = self.expr(node.comparators[i])
        right = self.scalar(right, node.comparators[i])
        t = _unify(left.type, right.type) if left.type != right.type else left.type
        result = self.b.emit(_CMPOPS[type(op)], self.convert(left, t), self.convert(right, t))
        if i + 1 == len(node.ops):
            return result
        return self.branch(result, lambda: self.compare(node, right, i + 1),
                           lambda: self.b.const(False, BOOL), node)

    def branch(self, cond: Var, then, orelse, node: ast.AST) -> Var:
        """An If region computing one value: `then()` or `orelse()` runs, not both."""
        results = []
        for make in (then, orelse):
            saved, self.b = self.b, Builder(self.names, self.b.loc)
            try:
                results.append((self.b, self.scalar(make(), node)))
            finally:
                self.b = saved
        t = _unify(results[0][1].type, results[1][1].type)
        blocks = [self.finish_region(b, [(v, t)]) for b, v in results]
        out = Var(self.names.fresh(), t)
        self.b.stmts.append(If((out,), cond, blocks[0], blocks[1], self.src.loc(node)))
        return out

    # ------------------------------------------------------------------ calls
    def call(self, node: ast.Call) -> Value:
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            raise self.unsupported(node.func, "call target")
        if isinstance(node.func, ast.Attribute) and self.is_local(node.func.value):
            return self.method_call(node)
        if isinstance(node.func, ast.Attribute):
            base = self.resolve_static(node.func.value)
            sub = numpy_module(base.obj)
            if sub is not None:
                return self.numpy_call(sub + node.func.attr, node)
        fn = self.resolve_static(node.func)
        if self.is_user_function(fn.obj):
            return self.user_call(fn, node)
        raw = [self.expr(a) for a in node.args]
        if fn.obj is len:
            if len(raw) != 1:
                raise self.src.error(node, "len() takes exactly one argument", cls=PyadTypeError)
            if isinstance(raw[0], tuple):
                return self.b.const(len(raw[0]), I64)
            return self.dims(self.array(raw[0], node.args[0]))[0]
        if node.keywords:
            raise self.src.error(node.keywords[0].value, "keyword arguments are not supported "
                                 f"in calls to `{fn.name}`", hint="pass them positionally")
        args = [self.scalar(a, n) for a, n in zip(raw, node.args)]
        for a, an in zip(args, node.args):
            if is_array(a.type):
                raise self.src.error(an, f"`{fn.name}` takes numbers, not arrays",
                                     cls=PyadTypeError, hint="use the numpy function (np.exp, "
                                     "np.sqrt, ...) for whole arrays")
        obj = fn.obj
        n = len(args)

        def need(k, exact=True):
            if (n != k) if exact else (n < k):
                raise self.src.error(node, f"`{fn.name}` takes {'' if exact else 'at least '}"
                                     f"{k} argument{'s' if k != 1 else ''} ({n} given)",
                                     cls=PyadTypeError)

        if obj is abs:
            need(1)
            return self.b.emit("abs", self.convert(args[0], _arith(args[0].type)))
        if obj is min or obj is max:
            need(2, exact=False)
            t = F64 if any(a.type == F64 for a in args) else I64
            acc = self.convert(args[0], t)
            for a in args[1:]:
                acc = self.b.emit("min" if obj is min else "max", acc, self.convert(a, t))
            return acc
        if obj is float:
            need(1)
            return self.convert(args[0], F64)
        if obj is int:
            need(1)
            return self.b.toint(args[0]) if args[0].type != I64 else args[0]
        if obj is bool:
            need(1)
            return self.truth(args[0], node)
        if obj is pow:
            need(2)
            return self.binop(ast.Pow(), args[0], args[1], node)
        if obj is math.floor or obj is math.ceil:
            need(1)
            if args[0].type != F64:
                return self.convert(args[0], I64)
            return self.b.toint(self.b.emit("floor" if obj is math.floor else "ceil", args[0]))
        if obj is math.log and n == 2:
            x, base = (self.convert(a, F64) for a in args)
            return self.b.div(self.b.log(x), self.b.log(base))
        if obj is math.hypot:
            need(1, exact=False)
            acc = self.convert(args[0], F64)
            if n == 1:
                return self.b.abs(acc)
            for a in args[1:]:
                acc = self.b.hypot(acc, self.convert(a, F64))
            return acc
        op = _FUNC_OPS.get(id(obj))
        if op is not None:
            need(len(next(iter(OPS[op].sigs))))
            return self.b.emit(op, *(self.convert(a, F64) for a in args))
        raise self.src.error(node.func, f"call to unsupported function `{fn.name}`",
                             hint="pyad supports the math module, abs/min/max/float/int/bool/"
                             "pow, numpy's array functions, and Python functions of your own")

    # ------------------------------------------------------------------ conversions
    def scalar(self, v: Value, node: ast.AST) -> Var:
        v = self.materialize(v)
        if isinstance(v, tuple):
            raise self.src.error(node, "a tuple cannot be used as a number here",
                                 hint="unpack it first: `a, b = t`, or index it: `t[0]`",
                                 cls=PyadTypeError)
        return v

    def convert(self, v: Var, t: str) -> Var:
        if v.type == t:
            return v
        if is_array(v.type) or is_array(t):
            raise PyadTypeError(f"a value of type {v.type} is used where {t} is expected "
                                f"(line {self.b.loc.line if self.b.loc else '?'}); a variable "
                                "must keep one array type, and arrays are not numbers")
        if t == F64:
            return self.b.tofloat(v)
        if t == I64:
            return self.b.toint(v)
        return self.b.tobool(v)

    def truth(self, v: Value, node: ast.AST) -> Var:
        v = self.scalar(v, node)
        return v if v.type == BOOL else self.b.tobool(v)

    def unsupported(self, node: ast.AST, what: str = "") -> PyadSyntaxError:
        name = _CONSTRUCT_NAMES.get(type(node), what or type(node).__name__)
        return self.src.error(node, f"unsupported syntax: {name}", hint=_HINTS.get(
            type(node), "see the supported subset in the README"))


def _constant_int(node: ast.expr) -> int | None:
    """The value of an integer literal such as `2` or `-1`, else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant_int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _arith(t: str) -> str:
    """Bools act as ints in arithmetic."""
    return I64 if t == BOOL else t


def _unify(a: str, b: str) -> str:
    if a == b or is_array(a) or is_array(b):
        return a  # arrays never change type (a mismatch fails in convert)
    if F64 in (a, b):
        return F64
    return I64


def _flatten(v: Value) -> list[Var]:
    if isinstance(v, tuple):
        out: list[Var] = []
        for x in v:
            out.extend(_flatten(x))
        return out
    return [v]


def _shape(v: Value, counter: list[int]) -> Any:
    if isinstance(v, tuple):
        return tuple(_shape(x, counter) for x in v)
    counter[0] += 1
    return counter[0] - 1


def lower(fn: types.FunctionType, arg_types: tuple[str, ...]) -> tuple[Func, Any]:
    """Lower `fn` for `arg_types`. Returns the Func and the shape of its return value
    (an int index into the results, or a nested tuple of them) to rebuild Python tuples."""
    lw = Lowering(fn, arg_types)
    func = lw.run()
    return func, _shape(lw.result, [0])
