"""The IR text form and the verifier: golden IR of a small example (primal, forward, backward,
value-and-gradient), print/parse round trips checked with the interpreter, what the backward
pass saves, and IR the verifier must reject. Regenerate goldens with PYAD_UPDATE_GOLDEN=1."""
from __future__ import annotations

import math

import numpy as np

import pytest

import pyad
from pyad.ir import interp
from pyad.errors import PyadInternalError
from pyad.ir.nodes import Block, Func, Op, Var
from pyad.ir.parse import parse_func
from pyad.ir.verify import verify

from ..golden_files import check_golden, strip_locs


def example(a, b):
    return a / (a + b * b)


def branchy(x, y):
    if x > 0.5:
        t = math.exp(x) * y
        u = t * t
    elif x < -1.0:
        u = -x
    else:
        u = math.sin(x) / y
    return u + (x * y if y > x else math.log(y) * x) + max(x, y) ** 2


def test_golden_example():
    jf = pyad.jit_grad(example, argnums="all")
    check_golden("example.primal.ir", strip_locs(jf.ir(2.0, 3.0)))
    check_golden("example.grad.ir", strip_locs(jf.grad_ir(2.0, 3.0)))


@pytest.mark.parametrize("fn,args", [(example, (2.0, 3.0)), (branchy, (0.7, 0.3)),
                                     (branchy, (-2.0, 0.3)), (branchy, (0.1, 2.0))])
def test_round_trip_and_interpreter(fn, args):
    jf = pyad.jit_grad(fn, argnums="all")
    spec = jf.specialization(args)
    unit = spec.gradient("all")
    for func in (spec.func, unit.fwd, unit.bwd, unit.fused):
        verify(func)
        again = parse_func(str(func))
        verify(again)
        assert str(again) == str(func)
    # the interpreter on parsed text agrees with the compiled code
    fused = parse_func(str(unit.fused))
    value, *grads = interp.run(fused, args)
    cval, cgrads = jf.value_and_grad(*args)
    assert value == pytest.approx(cval, rel=1e-14)
    assert list(cgrads) == pytest.approx(grads, rel=1e-13)
    pyad.check_grad(jf, *args)


def test_saved_values_only_what_the_backward_pass_reads():
    spec = pyad.jit_grad(example, argnums="all").specialization((2.0, 3.0))
    g = spec.gradient("all").g
    # d/da and d/db of a/(a+b*b) need a+b*b, the result and b; never the constant seed
    assert sorted(v.name for v in g.saved) == sorted({"2", "3", "b"})


def test_only_requested_arguments_are_differentiated():
    def h(a, b):
        return math.sin(a) * math.exp(b)

    spec = pyad.jit_grad(h, argnums=0).specialization((1.0, 2.0))
    bwd = str(spec.gradient(0).bwd)
    assert "cos" in bwd and "exp" not in bwd  # d/db work is removed


def test_verifier_rejects_bad_ir():
    x = Var("x", "f64")
    bad = Func("bad", Block((x,), (Op((Var("y", "i64"),), "add", (x, x)),), (x,)))
    with pytest.raises(PyadInternalError, match="cannot produce"):
        verify(bad)
    undefined = Func("u", Block((x,), (), (Var("z", "f64"),)))
    with pytest.raises(PyadInternalError, match="used before definition"):
        verify(undefined)
    twice = Func("t", Block((x,), (Op((x,), "const", (), (1.0,)),), (x,)))
    with pytest.raises(PyadInternalError, match="defined twice"):
        verify(twice)


def test_differentiate_preserves_the_primal():
    jf = pyad.jit_grad(branchy, argnums="all")
    for args in ((0.7, 0.3), (-2.0, 0.3)):
        spec = jf.specialization(args)
        fwd = spec.gradient("all").fwd
        n = len(spec.func.results)
        assert interp.run(fwd, args)[:n] == interp.run(spec.func, args)


def broadcasting(x, y):
    return np.sum(x * y) + 2.0 ** x[0]


def test_a_check_and_its_message_read_back():
    """`raise_if %c, ValueError, a message` (spaces, commas) prints and parses back."""
    args = (np.ones(3), np.ones(3))
    func = pyad.jit_grad(broadcasting).specialization(args).func
    text = str(func)
    assert "raise_if" in text and "operands could not be broadcast together" in text
    assert str(parse_func(text)) == text
