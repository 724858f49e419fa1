"""Frontend, calls: Python functions called from a compiled function are compiled with it.

A call to a plain Python function (defined in the caller's module or imported from another of
the user's modules), to another `jit_grad` function, or to a `custom_vjp` function is inlined:
the callee's body is lowered into the caller's IR with its parameters bound to the argument
values (numbers, arrays, tuples), so helpers cost nothing and are differentiated with their
caller. Keyword arguments and numeric default values work as in Python. The callee is looked
up when the caller is compiled, so a helper redefined later is picked up by the next compile.

A recursive call (a function calling itself, directly or through functions being inlined)
becomes a native call instead (recursion.py). `pyad.stop_gradient(x)`
and `custom_vjp` rules lower to the `stopgrad` and `custom_vjp` ops of the op table; a rule's
backward function is lowered once to a small IR function (`custom.RULES`) that the AD pass
inlines where the rule's cotangent flows.
"""
from __future__ import annotations

import ast
import inspect
import types
from typing import Any

from .builder import Builder
from .errors import PyadSyntaxError, PyadTypeError
from .ir import F64, Block, Func, Var, is_array

MAX_INLINE_DEPTH = 64
_LIBRARY_MODULES = ("numpy", "scipy", "math", "builtins", "pyad")


class CallLowering:
    """Mixed into `frontend.Lowering`."""

    # ------------------------------------------------------------------ what is a user call
    @staticmethod
    def is_user_function(obj: Any) -> bool:
        from .api import JitGrad
        from .custom import CustomVJP, stop_gradient
        if obj is stop_gradient or isinstance(obj, (JitGrad, CustomVJP)):
            return True
        if not isinstance(obj, types.FunctionType):
            return False
        module = (getattr(obj, "__module__", None) or "").split(".")[0]
        return module not in _LIBRARY_MODULES

    def user_call(self, fn, node: ast.Call):
        from .api import JitGrad
        from .custom import CustomVJP, stop_gradient
        obj = fn.obj
        if obj is stop_gradient:
            return self.stop_gradient(node)
        if isinstance(obj, CustomVJP):
            return self.rule_call(obj, fn.name, node)
        target = obj.fn if isinstance(obj, JitGrad) else obj
        return self.inline(target, fn.name, self.bind(target, fn.name, node), node)

    # ------------------------------------------------------------------ inlining
    def bind(self, callee: types.FunctionType, name: str, node: ast.Call) -> list:
        """The callee's parameter values for the call `node`, in parameter order."""
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.src.error(a, "unsupported syntax: starred argument",
                                     hint="pass the arguments one by one")
        for k in node.keywords:
            if k.arg is None:
                raise self.src.error(k.value, "unsupported syntax: ** argument",
                                     hint="pass the arguments by name one by one")
        sig = inspect.signature(callee)
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise self.src.error(node.func, f"cannot compile a call to `{name}`: it takes "
                                     f"*args or **kwargs", hint="give it plain parameters")
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords}
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            raise self.src.error(node, f"{name}(): {exc}", cls=PyadTypeError) from None
        values = []
        for p in sig.parameters.values():
            if p.name in bound.arguments:
                values.append(bound.arguments[p.name])
            else:
                values.append(self.default_value(p.default, name, p.name, node))
        return values

    def default_value(self, value: Any, fname: str, pname: str, node: ast.AST):
        if isinstance(value, (bool, int, float)):
            return self.constant(value, node)
        if isinstance(value, tuple) and all(isinstance(v, (bool, int, float)) for v in value):
            return tuple(self.constant(v, node) for v in value)
        raise self.src.error(node, f"the default value of parameter `{pname}` of `{fname}` "
                             f"({type(value).__name__}) cannot be used in compiled code",
                             hint="pass it explicitly, or make the default a number")

    def inline(self, callee: types.FunctionType, name: str, values: list, node: ast.AST):
        """Lower `callee`'s body into this function's IR; its return value."""
        chain = self.call_chain()
        if callee.__code__ in chain:
            from .recursion import recursive_call
            return recursive_call(self, callee, name, values, node)
        if len(chain) >= MAX_INLINE_DEPTH:
            raise self.src.error(node, f"calls nested more than {MAX_INLINE_DEPTH} deep")
        from .frontend import Lowering
        try:
            sub = Lowering(callee, parent=self)
        except PyadSyntaxError as exc:
            raise self.src.error(node, f"cannot compile `{name}`, called here: "
                                 f"{exc.bare_message}", hint=exc.hint) from None
        for arg, v in zip(sub.fdef.args.args, values):
            sub.env[arg.arg] = self.materialize(v)
        return sub.body()

    def call_chain(self) -> tuple:
        chain, lw = [], self
        while lw is not None:
            chain.append(lw.fn.__code__)
            lw = lw.parent
        return tuple(chain)

    # ------------------------------------------------------------------ stop_gradient
    def stop_gradient(self, node: ast.Call):
        if len(node.args) != 1 or node.keywords:
            raise self.src.error(node, "stop_gradient takes exactly one argument",
                                 cls=PyadTypeError)
        v = self.materialize(self.expr(node.args[0]))
        return self.map_floats(v, lambda x: self.b.emit("stopgrad", x), node)

    def map_floats(self, v, f, node: ast.AST):
        """Apply `f` to every float in `v` (numbers, arrays elementwise, tuples)."""
        if isinstance(v, tuple):
            return tuple(self.map_floats(x, f, node) for x in v)
        if is_array(v.type):
            return self.materialize(self.elementwise(
                lambda x: f(x) if x.type == F64 else x, [v], node))
        return f(v) if v.type == F64 else v

    # ------------------------------------------------------------------ custom_vjp
    def rule_call(self, rule, name: str, node: ast.Call):
        """`y = f(x...)` for a custom_vjp function: y and the residuals come from the rule's
        forward function (cut from the gradient), and each float in y is passed through a
        `custom_vjp` op whose adjoint is the rule's backward function."""
        from .custom import register_backward
        if rule.fwd is None:
            raise self.src.error(node, f"`{name}` is a custom_vjp function without rules",
                                 hint=f"call `{name}.defvjp(fwd, bwd)` at module level")
        values = self.bind(rule.fn, name, node)
        xs = _leaves(values)
        for x in xs:
            if is_array(x.type):
                raise self.src.error(node, f"custom_vjp function `{name}` takes numbers and "
                                     "tuples of numbers, not arrays", cls=PyadTypeError)
        out = self.inline(rule.fwd, f"{name} (its forward rule)", values, node)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise self.src.error(node, f"the forward rule of `{name}` must return a pair "
                                 "(value, residuals)", cls=PyadTypeError)
        y, res = out
        y_leaves, res_leaves = _leaves(y), _leaves(res)
        if any(is_array(v.type) for v in y_leaves + res_leaves):
            raise self.src.error(node, f"custom_vjp function `{name}`: values and residuals "
                                 "must be numbers or tuples of numbers", cls=PyadTypeError)
        cut = lambda v: self.b.emit("stopgrad", v) if v.type == F64 else v  # noqa: E731
        y_cut, res_cut = [cut(v) for v in y_leaves], [cut(v) for v in res_leaves]
        rule_id = register_backward(rule, name, self, res, y, len(xs), node)
        outs = []
        for k, v in enumerate(y_cut):
            if v.type != F64:
                outs.append(v)
                continue
            outs.append(self.b.emit("custom_vjp", v, *res_cut, *xs, attrs=(rule_id, k)))
        it = iter(outs)
        return _rebuild(y, it)

    def lower_backward(self, rule, name: str, res, y, n_args: int, node: ast.AST) -> Func:
        """The rule's backward function as an IR function of (residuals..., cotangents...)
        returning one float cotangent per argument of the primal function."""
        from .frontend import Lowering
        saved_b = self.b
        self.b = Builder(self.names, self.b.loc)
        try:
            res_p, ct_p = _like(res, self.names), _like(y, self.names)
            sub = Lowering(rule.bwd, parent=self)
            args = sub.fdef.args.args
            if len(args) != 2:
                raise self.src.error(node, f"the backward rule of `{name}` must take "
                                     "(residuals, cotangent)", cls=PyadTypeError)
            sub.env[args[0].arg], sub.env[args[1].arg] = res_p, ct_p
            g = sub.materialize(sub.body())
            g = g if isinstance(g, tuple) else (g,)
            if len(g) != n_args:
                raise self.src.error(node, f"the backward rule of `{name}` returns {len(g)} "
                                     f"cotangent{'s' if len(g) != 1 else ''}; `{name}` takes "
                                     f"{n_args} argument{'s' if n_args != 1 else ''}",
                                     cls=PyadTypeError)
            results = []
            for v in g:
                if isinstance(v, tuple) or is_array(v.type):
                    raise self.src.error(node, f"the backward rule of `{name}` must return "
                                         "one number per argument", cls=PyadTypeError)
                results.append(self.convert(v, F64))
            params = tuple(_leaves(res_p)) + tuple(_leaves(ct_p))
            return Func(f"{name}.bwd", Block(params, tuple(self.b.stmts), tuple(results)),
                        self.src.filename)
        finally:
            self.b = saved_b


def _leaves(v) -> list[Var]:
    if isinstance(v, (tuple, list)):
        return [x for e in v for x in _leaves(e)]
    return [v]


def _rebuild(like, it):
    if isinstance(like, tuple):
        return tuple(_rebuild(e, it) for e in like)
    return next(it)


def _like(v, names):
    """Fresh variables with the structure and types of `v` (cotangents of ints and bools are
    passed as they are; the backward function usually ignores them)."""
    if isinstance(v, tuple):
        return tuple(_like(e, names) for e in v)
    return Var(names.fresh("r"), v.type)
