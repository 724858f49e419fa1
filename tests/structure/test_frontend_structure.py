"""The frontend's shape: collaborators composed around one context (no mixins), the builder and
the environment swapped only through the context, functions that fit on a screen, and custom
rules carried by the ops that use them. Read from the source with `ast` where possible."""
from __future__ import annotations

import ast
import math
from pathlib import Path

import pyad
from pyad.frontend import custom, lower as frontend
from pyad.frontend.context import Context
from pyad.ir.nodes import Op, walk

FRONTEND = sorted((Path(pyad.__file__).resolve().parent / "frontend").glob("*.py"))
MAX_FUNCTION_LINES = 60


def _trees():
    for path in FRONTEND:
        yield path, ast.parse(path.read_text())


def test_lowering_is_composed_not_mixed_in():
    assert frontend.Lowering.__bases__ == (object,)
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                assert not node.bases or path.name == "context.py", \
                    f"{path.name}: class {node.name} inherits {ast.unparse(node.bases[0])}"


def test_collaborators_share_one_context():
    lw = frontend.Lowering(_helper, ("f64",))
    parts = [lw.stmts, lw.loops, lw.exprs, lw.functions, lw.arrays, lw.arrayops, lw.calls]
    assert isinstance(lw.ctx, Context)
    assert all(p.ctx is lw.ctx and p.lw is lw for p in parts)


def test_builder_and_environment_are_swapped_only_by_the_context():
    """`ctx.b` and `ctx.env` are rebound only by Context.emitting / Context.scope."""
    for path, tree in _trees():
        if path.name == "context.py":
            continue
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    assert not (isinstance(e, ast.Attribute) and e.attr in ("b", "env")), \
                        f"{path.name}:{node.lineno}: rebinds .{e.attr}; use ctx.emitting/scope"


def test_functions_fit_on_a_screen():
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                assert n <= MAX_FUNCTION_LINES, f"{path.name}: {node.name} has {n} lines"


def test_no_trial_state_in_the_lowering():
    """Loop-type widening is one step (frontend_loops.Loops.widen) that returns the carried
    types; no lowering keeps trial results in attributes, and nothing lowers with emit=False."""
    for path, tree in _trees():
        text = path.read_text()
        assert "_trial_shapes" not in text and "emit=False" not in text, path.name


# ----------------------------------------------------------------------------- custom rules

@pyad.custom_vjp
def _clipped_log(x):
    return math.log(x)


def _clipped_log_fwd(x):
    return math.log(x), x


def _clipped_log_bwd(res, ct):
    return (ct / max(res, 1e-3),)


_clipped_log.defvjp(_clipped_log_fwd, _clipped_log_bwd)


def _uses_rule(x):
    return _clipped_log(x) * 2.0


def _helper(x):
    return x * x


def test_custom_rules_ride_on_their_ops():
    f = pyad.jit_grad(_uses_rule)
    spec = f.specialization((2.0,))
    ops = [s for s in walk(spec.func.block) if isinstance(s, Op) and s.op == "custom_vjp"]
    assert ops and all(isinstance(s.attrs[0], custom.Rule) for s in ops)
    assert "rule:_clipped_log" in f.ir(2.0)
    assert not hasattr(custom, "register_backward")
    assert f.grad(2.0) == 2.0 / 2.0
