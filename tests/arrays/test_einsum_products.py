"""np.einsum contractions that are one matrix product run the runtime's matrix product
(pyad/frontend/einsum.py: Einsum.products), and so do batches of them over a letter that
is the first axis of both operands and of the output ("bij,bjk->bik"); the others (W2's
"krc,nkc->nkr" among them) stay element loops; three or more operands are contracted two at a time where that takes fewer
multiplications (Einsum.pairwise: "ni,ij,nj->n" is a matrix product, then row dot
products). Each spelling is checked against NumPy's value, central differences with the
dot-product test and the IR interpreter."""
from __future__ import annotations

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python


def krc(q, x):
    return np.sum(np.einsum("krc,nkc->nkr", q, x) ** 2)


def mm(a, b):
    return np.sum(np.sin(np.einsum("ij,jk->ik", a, b)))


def mm_bt(a, b):
    return np.sum(np.sin(np.einsum("ij,kj->ik", a, b)))


def mm_out_t(a, b):
    return np.sum(np.sin(np.einsum("ij,jk->ki", a, b)) * np.arange(15.0).reshape(5, 3))


def mv(a, v):
    return np.sum(np.exp(np.einsum("ij,j->i", a, v)))


def vm(v, a):
    return np.sum(np.exp(np.einsum("j,jk->k", v, a)))


def bmm(a, b):
    return np.sum(np.cos(np.einsum("bij,bjk->bik", a, b)))


def bmm_moved(a, b):
    return np.sum(np.cos(np.einsum("bij,bjk->kbi", a, b)) * np.arange(24.0).reshape(4, 2, 3))


def heads(q, k):
    return np.sum(np.einsum("hnd,hmd->hnm", q, k) ** 2)


def batch_not_first(a, b):       # the batch letter is not the first axis of a
    return np.sum(np.cos(np.einsum("ibj,bjk->bik", a, b)))


def row_dots(a, b):
    return np.sum(np.einsum("ij,ij->i", a, b) ** 2)


def _u(*shape):
    return np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape)


def quadratic_forms(x, a):
    return np.sum(np.einsum("ni,ij,nj->n", x, a, x) ** 2)


def chain(a, b, c):
    return np.sum(np.sin(np.einsum("ij,jk,kl->il", a, b, c)))


def batched_chain(a, b, c):
    return np.sum(np.cos(np.einsum("bij,bjk,bkl->bil", a, b, c)))


def bilinear(x, a, y):
    return np.einsum("i,ij,j", x, a, y) ** 2


def four(a, b, c, d):
    return np.sum(np.einsum("ij,jk,kl,l->i", a, b, c, d) ** 2)


def triple_product(x, y, z):     # one nest: pairs would cost as much (one letter)
    return np.einsum("i,i,i->", x, y, z)


CASES = [
    (krc, (_u(3, 4, 5), _u(6, 3, 5)), False),
    (mm, (_u(3, 4), _u(4, 5)), True),
    (mm_bt, (_u(3, 4), _u(5, 4)), True),
    (mm_out_t, (_u(3, 4), _u(4, 5)), True),
    (mv, (_u(3, 4), _u(4)), True),
    (vm, (_u(4), _u(4, 5)), True),
    (bmm, (_u(2, 3, 4), _u(2, 4, 5)), True),
    (bmm_moved, (_u(2, 3, 4), _u(2, 4, 4)), False),   # b is not first in the output
    (heads, (_u(2, 3, 4), _u(2, 5, 4)), True),
    (batch_not_first, (_u(3, 2, 4), _u(2, 4, 5)), False),
    (row_dots, (_u(3, 4), _u(3, 4)), False),
    (quadratic_forms, (_u(6, 4), _u(4, 4)), True),
    (chain, (_u(3, 4), _u(4, 5), _u(5, 2)), True),
    (batched_chain, (_u(2, 3, 4), _u(2, 4, 5), _u(2, 5, 3)), True),
    (bilinear, (_u(3), _u(3, 4), _u(4)), True),
    (four, (_u(3, 4), _u(4, 5), _u(5, 2), _u(2)), True),
    (triple_product, (_u(5), _u(5), _u(5)), False),
]


@pytest.mark.parametrize("fn, args, product", CASES,
                         ids=lambda c: getattr(c, "__name__", ""))
def test_value_and_gradient(fn, args, product):
    f = check_against_python(fn, *args)
    assert ("= matmul " in f.ir(*args)) == product


@pytest.mark.parametrize("fn, args", [(krc, (_u(2, 1, 3), _u(1, 2, 3))),
                                      (bmm, (_u(1, 1, 1), _u(1, 1, 1))),
                                      (mm, (_u(3, 0), _u(0, 2))),
                                      (mm, (_u(6, 4)[::2, :], _u(5, 4).T)),
                                      (krc, (_u(3, 5, 4).transpose(0, 2, 1), _u(6, 3, 10)[:, :, ::2]))],
                         ids=["sizes-1", "ones", "empty-sum", "strided", "transposed"])
def test_small_empty_and_strided_operands(fn, args):
    check_against_python(fn, *args)


def _plain_product(a, b):
    return np.sum(np.sin(a @ b))


def test_the_same_bits_as_the_matrix_product():
    a, b = _u(7, 9), _u(9, 6)
    v1, g1 = pyad.jit_grad(mm, argnums=(0, 1)).value_and_grad(a, b)
    v2, g2 = pyad.jit_grad(_plain_product, argnums=(0, 1)).value_and_grad(a, b)
    assert v1 == v2
    assert all(np.array_equal(x, y) for x, y in zip(g1, g2))


def test_three_operands_contract_two_at_a_time_only_where_it_pays():
    """The pairs' intermediates are arrays of the function: one for "ni,ij,nj->n" (the
    matrix product), none for "i,i,i->" (its one nest is as cheap)."""
    args = (_u(6, 4), _u(4, 4))
    assert pyad.jit_grad(quadratic_forms).ir(*args).count("= matmul ") == 1
    assert "alloc" not in pyad.jit_grad(triple_product).ir(_u(5), _u(5), _u(5))
