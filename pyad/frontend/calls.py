"""Frontend, calls: Python functions called from a compiled function are compiled with it.

A call to a plain Python function (defined in the caller's module or imported from another of
the user's modules), to another compiled function (anything with a `__pyad_wrapped__`
attribute: `jit_grad`), or to a `custom_vjp` function is inlined: the callee's body is lowered
into the caller's IR with its parameters bound to the argument values (numbers, arrays,
tuples), so helpers cost nothing and are differentiated with their caller. Keyword arguments
and numeric default values work as in Python. The callee is looked up when the caller is
compiled, so a helper redefined later is picked up by the next compile.

A recursive call (a function calling itself, directly or through functions being inlined)
becomes a native call instead (recursion.py). `pyad.stop_gradient(x)` and `custom_vjp`
functions lower to the `stopgrad` and `custom_vjp` ops of the op table; a rule's backward
function is lowered once per call site to a small IR function, carried by the `custom_vjp`
ops themselves (a `custom.Rule` in their attributes), which the AD pass inlines where the
rule's cotangent flows.

The callee's body is lowered by a lowering of its own (`lw.inlined(fn)`, frontend.py) that
emits into the caller's builder.
"""
from __future__ import annotations

import ast
import inspect
import types
from typing import Any

from .. import pytree
from ..custom import CustomVJP, stop_gradient
from . import prelude, special
from .custom import Rule
from ..errors import PyadSyntaxError, PyadTypeError
from .context import DynList, PyList, RangeVal, SliceVal, Static, parameters
from ..pytree import Record
from ..ir.nodes import F64, Block, Func, Var, is_array
from .recursion import recursive_call

MAX_INLINE_DEPTH = 64
_LIBRARY_MODULES = ("numpy", "scipy", "math", "builtins", "pyad")


def compiled_function(obj: Any) -> types.FunctionType | None:
    """The Python function that a compiled function (`pyad.jit_grad(f)`) wraps, else None.
    Recognised by its `__pyad_wrapped__` attribute, so that the frontend needs no import of
    the API."""
    fn = getattr(obj, "__pyad_wrapped__", None)
    return fn if isinstance(fn, types.FunctionType) else None


class CallLowering:
    """Calls to the user's functions (see the module docstring); one per function body."""

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    # ------------------------------------------------------------------ what is a user call
    @staticmethod
    def is_user_function(obj: Any) -> bool:
        if obj is stop_gradient or isinstance(obj, CustomVJP):
            return True
        if compiled_function(obj) is not None:
            return True
        if not isinstance(obj, types.FunctionType):
            return False
        module = getattr(obj, "__module__", None) or ""
        return module == prelude.__name__ or module.split(".")[0] not in _LIBRARY_MODULES

    def user_call(self, fn: Static, node: ast.Call):
        obj = fn.obj
        if obj is stop_gradient:
            return self.stop_gradient(node)
        if isinstance(obj, CustomVJP):
            return self.rule_call(obj, fn.name, node)
        target = compiled_function(obj) or obj
        return self.inline(target, fn.name, self.bind(target, fn.name, node), node)

    # ------------------------------------------------------------------ inlining
    def bind(self, callee: types.FunctionType, name: str, node: ast.Call) -> list:
        """The callee's parameter values for the call `node`, in parameter order."""
        ctx, ex = self.ctx, self.lw.exprs
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise ctx.error(a, "unsupported syntax: starred argument",
                                hint="pass the arguments one by one")
        for k in node.keywords:
            if k.arg is None:
                raise ctx.error(k.value, "unsupported syntax: ** argument",
                                hint="pass the arguments by name one by one")
        sig = inspect.signature(callee)
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise ctx.error(node.func, f"cannot compile a call to `{name}`: it takes "
                                f"*args or **kwargs", hint="give it plain parameters")
        args = [ex.expr(a) for a in node.args]
        kwargs = {k.arg: ex.expr(k.value) for k in node.keywords}
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise ctx.error(node, f"{name}(): {exc}", cls=PyadTypeError) from None
        values = []
        for p in sig.parameters.values():
            if p.name in bound.arguments:
                values.append(bound.arguments[p.name])
            else:
                values.append(self.default_value(p.default, name, p.name, node))
        return values

    def default_value(self, value: Any, fname: str, pname: str, node: ast.AST):
        """A parameter's default: a number, None, a string, a tuple of numbers, or (like a
        global) an array frozen as a constant, a tuple or namedtuple of numbers and arrays;
        not a list or dict (mutable: CPython shares one between calls)."""
        constant = self.lw.exprs.constant
        if value is None or isinstance(value, (bool, int, float, str)):
            return constant(value, node)
        if isinstance(value, tuple) and all(isinstance(v, (bool, int, float)) for v in value):
            return tuple(constant(v, node) for v in value)
        if type(value).__name__ == "ndarray" or (pytree.as_node(value) is not None
                                                 and not isinstance(value, (list, dict))):
            return self.lw.exprs.static_value(Static(value, pname), node)
        raise self.ctx.error(node, f"the default value of parameter `{pname}` of `{fname}` "
                             f"({type(value).__name__}) cannot be used in compiled code",
                             hint="pass it explicitly, or make the default a number")

    def inline(self, callee: types.FunctionType, name: str, values: list, node: ast.AST):
        """Lower `callee`'s body into this function's IR; its return value."""
        chain = self.ctx.call_chain()
        if callee.__code__ in chain:
            return recursive_call(self.lw, callee, name, values, node)
        if len(chain) >= MAX_INLINE_DEPTH:
            raise self.ctx.error(node, f"calls nested more than {MAX_INLINE_DEPTH} deep")
        sub = self.child(callee, name, node)
        for arg, v in zip(parameters(sub.fdef.args), values):
            sub.ctx.env[arg.arg] = self.lw.arrayops.materialize(v)
        return sub.body()

    def child(self, callee: types.FunctionType, name: str, node: ast.AST):
        """A lowering of `callee`'s body into this function's IR (errors in reading its
        source are reported at the call)."""
        at = self.ctx.src.loc(node) if callee.__module__ in (prelude.__name__, special.__name__) \
            else None
        try:
            return self.lw.inlined(callee, at)   # NumPy's functions of the prelude: at the call
        except PyadSyntaxError as exc:
            raise self.ctx.error(node, f"cannot compile `{name}`, called here: "
                                 f"{exc.bare_message}", hint=exc.hint) from None

    # ------------------------------------------------------------------ stop_gradient
    def stop_gradient(self, node: ast.Call):
        if len(node.args) != 1 or node.keywords:
            raise self.ctx.error(node, "stop_gradient takes exactly one argument",
                                 cls=PyadTypeError)
        v = self.lw.arrayops.materialize(self.lw.exprs.expr(node.args[0]))
        return self.map_floats(v, lambda x: self.ctx.b.emit("stopgrad", x), node)

    def map_floats(self, v, f, node: ast.AST):
        """Apply `f` to every float in `v` (numbers, arrays elementwise, tuples)."""
        if isinstance(v, (RangeVal, SliceVal)) or isinstance(v, Record) and not v.children:
            return v   # ints, None, strings: no floats
        if isinstance(v, DynList):
            return v.rebuild((self.map_floats(v.buf, f, node), v.n))
        if isinstance(v, Record):
            return v.with_children(self.map_floats(x, f, node) for x in v.children)
        if isinstance(v, tuple):
            items = [self.map_floats(x, f, node) for x in v]
            return v.rebuild(items) if isinstance(v, PyList) else tuple(items)
        if is_array(v.type):
            ops = self.lw.arrayops
            return ops.materialize(ops.elementwise(
                lambda x: f(x) if x.type == F64 else x, [v], node))
        return f(v) if v.type == F64 else v

    # ------------------------------------------------------------------ custom_vjp
    def rule_call(self, rule: CustomVJP, name: str, node: ast.Call):
        """`y = f(x...)` for a custom_vjp function: y and the residuals come from the rule's
        forward function (cut from the gradient), and each float in y is passed through a
        `custom_vjp` op whose adjoint is the rule's backward function."""
        ctx = self.ctx
        if rule.fwd is None:
            raise ctx.error(node, f"`{name}` is a custom_vjp function without rules",
                            hint=f"call `{name}.defvjp(fwd, bwd)` at module level")
        values = self.bind(rule.fn, name, node)
        xs = pytree.leaves(values)
        for x in xs:
            if is_array(x.type):
                raise ctx.error(node, f"custom_vjp function `{name}` takes numbers and "
                                "tuples of numbers, not arrays", cls=PyadTypeError)
        out = self.inline(rule.fwd, f"{name} (its forward rule)", values, node)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise ctx.error(node, f"the forward rule of `{name}` must return a pair "
                            "(value, residuals)", cls=PyadTypeError)
        y, res = out
        y_leaves, res_leaves = pytree.leaves(y), pytree.leaves(res)
        if any(is_array(v.type) for v in y_leaves + res_leaves):
            raise ctx.error(node, f"custom_vjp function `{name}`: values and residuals "
                            "must be numbers or tuples of numbers", cls=PyadTypeError)
        cut = lambda v: ctx.b.emit("stopgrad", v) if v.type == F64 else v  # noqa: E731
        y_cut, res_cut = [cut(v) for v in y_leaves], [cut(v) for v in res_leaves]
        bwd = self.lower_backward(rule, name, res, y, len(xs), node)
        lowered = Rule(name, bwd, len(res_leaves), tuple(v.type for v in y_leaves))
        outs = []
        for k, v in enumerate(y_cut):
            if v.type != F64:
                outs.append(v)
                continue
            outs.append(ctx.b.emit("custom_vjp", v, *res_cut, *xs, attrs=(lowered, k)))
        return pytree.unflatten(y, outs)

    def lower_backward(self, rule: CustomVJP, name: str, res, y, n_args: int,
                       node: ast.AST) -> Func:
        """The rule's backward function as an IR function of (residuals..., cotangents...)
        returning one float cotangent per argument of the primal function (cotangents of
        ints and bools are passed as they are; the backward function usually ignores them)."""
        ctx = self.ctx
        fresh = lambda v: Var(ctx.names.fresh("r"), v.type)  # noqa: E731
        with ctx.emitting(ctx.builder()) as b:
            res_p, ct_p = pytree.tree_map(fresh, res), pytree.tree_map(fresh, y)
            sub = self.lw.inlined(rule.bwd)
            args = sub.fdef.args.args
            if len(args) != 2:
                raise ctx.error(node, f"the backward rule of `{name}` must take "
                                "(residuals, cotangent)", cls=PyadTypeError)
            sub.ctx.env[args[0].arg], sub.ctx.env[args[1].arg] = res_p, ct_p
            g = sub.arrayops.materialize(sub.body())
            # one cotangent per argument, a tuple for a tuple argument (JAX's), or one per
            # number; None is a zero cotangent (JAX's for an argument without one)
            g = _cotangent_leaves(g if isinstance(g, tuple) else (g,), b)
            if len(g) != n_args:
                raise ctx.error(node, f"the backward rule of `{name}` returns {len(g)} "
                                f"cotangent{'s' if len(g) != 1 else ''}; `{name}` takes "
                                f"{n_args} argument{'s' if n_args != 1 else ''}",
                                cls=PyadTypeError)
            results = []
            for v in g:
                if isinstance(v, tuple) or is_array(v.type):
                    raise ctx.error(node, f"the backward rule of `{name}` must return "
                                    "one number per argument", cls=PyadTypeError)
                results.append(ctx.convert(v, F64))
        params = tuple(pytree.leaves(res_p)) + tuple(pytree.leaves(ct_p))
        return Func(f"{name}.bwd", Block(params, tuple(b.stmts), tuple(results)),
                    ctx.src.filename)


def _cotangent_leaves(g: tuple, b) -> list:
    """The numbers of the cotangents `g` in order, nested tuples flattened, None as 0.0."""
    out = []
    for v in g:
        if v == pytree.NONE:
            out.append(b.const(0.0))
        elif isinstance(v, tuple):
            out.extend(_cotangent_leaves(v, b))
        else:
            out.append(v)
    return out
