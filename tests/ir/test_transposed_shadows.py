"""Contributions added into a 2-D transposed view (the shadow of `A.T` in the adjoint of
`A.T @ v`, `v @ A`) are expanded with the view's
second axis outside and its first inside (pyad/ir/expand.py `_Into.flip`): along the memory
of the array it views. Each element gets one add in such a nest, so the bits are those of
the other order (checked with the pass's transposed views hidden); values and gradients
against CPython, central differences and the interpreter."""
from __future__ import annotations

import numpy as np

import pyad
from pyad import pipeline
from pyad.ir import expand as expand_mod
from pyad.ir.nodes import Op, While, walk

from ..gradients import check_against_python


def sinkhorn(C, a, b):
    K = np.exp(-C / 0.5)
    u = np.ones_like(a)
    v = np.ones_like(b)
    for _ in range(3):
        v = b / (K.T @ u)
        u = a / (K @ v)
    return np.sum(u[:, None] * K * v[None, :] * C)


def transposed_products(A, x, y):
    return np.sum(np.sin(A.T @ x)) + np.sum(np.cos(x @ A)) + np.sum(np.tanh(A.T) * np.outer(y, x))


def _args():
    rng = np.random.default_rng(9)
    return rng.uniform(0.5, 1.5, (5, 4)), rng.uniform(0.5, 1.5, 5), rng.uniform(0.5, 1.5, 4)


def test_values_and_gradients():
    check_against_python(sinkhorn, *_args())
    check_against_python(transposed_products, *_args())


def test_the_bits_of_the_row_order(monkeypatch):
    def results():
        out = []
        for fn in (sinkhorn, transposed_products):
            f = pyad.jit_grad(fn, argnums="all", cache=False)
            v, g = f.value_and_grad(*_args())
            out += [np.float64(v).tobytes()] + [x.tobytes() for x in g]
        return out
    flipped = results()
    init = expand_mod._Expander.__init__
    monkeypatch.setattr(expand_mod._Expander, "__init__",
                        lambda self, names, into, transposed: init(self, names, into, set()))
    assert results() == flipped


def test_the_inner_loop_walks_the_viewed_array():
    """In the gradient of `A.T @ x`, the outer product is added into the shadow of A.T with
    the view's first index counted by the innermost loop."""
    func, _ = pipeline.primal_ir(lambda A, x: np.sum(np.sin(A.T @ x)), ("f64[2d]", "f64[1d]"))
    g = pipeline.gradient_ir(func, (0,)).fused
    transposed = {s.outs[0].name for s in walk(g.block) if isinstance(s, Op)
                  and s.op == "transpose"}
    found = 0
    for loop in (s for s in walk(g.block) if isinstance(s, While)):
        counter = loop.body.params[0].name
        for s in loop.body.body:
            if isinstance(s, Op) and s.op == "accum" and s.args[0].name in transposed:
                assert s.args[1].name == counter
                found += 1
    assert found
