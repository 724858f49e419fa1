"""Every array op of docs/arrays.md as a small function, with sample arguments (`OPS`): the
table tests/arrays/test_ops.py checks one row at a time; other array tests reuse single ops."""
from __future__ import annotations

import numpy as np

from .. import corpus_arrays as C


# Every array op of docs/arrays.md, alone, with its gradient checked (pullback dot-product
# test for array results, interpreter + finite differences for float results).
def op_add(x, y):
    return x + y


def op_add_scalar(x, s):
    return x + s, s + x, x + 2


def op_sub_arrays(x, y):
    return x - y, 1.5 - x, x - 0.5


def op_mul(x, y):
    return x * y, 2.0 * x, y * 3


def op_div(x, y):
    return x / y, 1.0 / y, x / 3.0


def op_pow(x, y):
    return x ** y, x ** 3, 2.0 ** y, x ** 0.5, x ** 2


def op_floordiv(x, y):
    return (x // y) * x, x // 0.75


def op_neg(x):
    return -x


def op_exp(x):
    return np.exp(x)


def op_log(x):
    return np.log(x)


def op_sqrt(x):
    return np.sqrt(x)


def op_sin(x):
    return np.sin(x)


def op_cos(x):
    return np.cos(x)


def op_tanh(x):
    return np.tanh(x)


def op_abs(x):
    return np.abs(x)


def op_maximum(x, y):
    return np.maximum(x, y), np.maximum(x, 0.3), np.maximum(-0.1, y)


def op_minimum(x, y):
    return np.minimum(x, y), np.minimum(x, 0.3), np.minimum(-0.1, y)


def op_where(x, y):
    return np.where(x > y, x * y, y - x), np.where(x < 0.2, 1.0, x), np.where(y >= 0.0, y, 0.5)


def op_compare(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y, x < 0.0


def op_sum(a):
    return np.sum(a)


def op_mean(a):
    return np.mean(a)


def op_max(a):
    return np.max(a)


def op_min(a):
    return np.min(a)


def op_sum_axis0(a):
    return np.sum(a, axis=0)


def op_sum_axis1(a):
    return np.sum(a, axis=1)


def op_sum_axis2(a):
    return np.sum(a, axis=2)


def op_mean_axis0(a):
    return np.mean(a, axis=0)


def op_mean_axis1(a):
    return np.mean(a, axis=1)


def op_max_axis0(a):
    return np.max(a, axis=0)


def op_max_axis1(a):
    return np.max(a, axis=1)


def op_min_axis0(a):
    return np.min(a, axis=0)


def op_min_axis1(a):
    return np.min(a, axis=1)


def op_methods(a):
    return a.sum(), a.mean(axis=0), a.max(axis=1), a.min(), a.sum(axis=1), a.max(), \
        a.min(axis=0), a.mean()


def op_dot_vv(x, y):
    return np.dot(x, y)


def op_matmul_vv(x, y):
    return x @ y


def op_dot_mv(a, x):
    return np.dot(a, x)


def op_matmul_mv(a, x):
    return a @ x


def op_dot_vm(x, a):
    return np.dot(x, a)


def op_matmul_vm(x, a):
    return x @ a


def op_dot_mm(a, b):
    return np.dot(a, b)


def op_matmul_mm(a, b):
    return a @ b


def op_transpose(a):
    return a.T


def op_transpose_arith(a, b):
    return (a.T * b).T + a.T.T


def op_outer(u, v):
    return np.outer(u, v)


def op_sum_axes(a):
    return np.sum(a, axis=(0, -1)), np.sum(a, axis=-2), np.sum(a, axis=None)


def op_sum_keepdims(a):
    return a * np.sum(a, axis=0, keepdims=True) - np.mean(a, axis=-1, keepdims=True), \
        np.sum(a, keepdims=True)


def op_mean_axes(a):
    return np.mean(a, axis=(0, 1)), a.sum(axis=(1,)), a.mean(keepdims=True)


def op_layer(X, W, b):
    return np.tanh(X @ W + b) @ W.T


def op_norm_vec(x):
    return np.linalg.norm(x)


def op_norm_mat(a):
    return np.linalg.norm(a)


def op_bc_scalar(a, s):
    return a * s + s, s / (2.0 + a * a), a - s


def op_bc_row(a, r):
    return a + r, a * r, r - a, a / (2.0 + r * r)


def op_bc_col(a, c):
    return a - c, c * a


def op_bc_col_row(c, r):
    return c + r, c * r, r - c


def op_bc_col_row2(c, r2):
    return c * r2 + r2, c - r2


def op_bc_3d(t, m, v, c):
    return t + m, t * v, t - c, m * t + v


def op_copy(x):
    return x.copy() * 2.0, np.copy(x) + 1.0


def op_unary_chain(x, y):
    return np.sum(-(np.exp(-x) * np.tanh(y)) + np.sqrt(x * x + 1.0) - np.abs(y) * np.cos(x))


def _g(seed):
    return np.random.default_rng(seed)


def _pos(seed, *shape):
    return _g(seed).uniform(0.3, 2.0, size=shape)


def _apart(seed, n):
    """x, y with |x - y| >= 0.1 everywhere, x away from 0.3 and 0.2, y away from -0.1, 0."""
    g = _g(seed)
    x = C._away(g.uniform(-1.5, 1.5, n), (0.3, 0.2, 0.0))
    y = C._away(g.uniform(-1.5, 1.5, n), (-0.1, 0.0))
    y = np.where(np.abs(x - y) < 0.1, y + 0.35, y)
    return x, y


_x6, _y6 = _apart(300, 6)
_M = _g(301).normal(size=(3, 4))
_T = _g(302).normal(size=(2, 3, 4))

OPS = [
    (op_add, (_g(1).normal(size=5), _g(2).normal(size=5))),
    (op_add, (_g(3).normal(size=(2, 3)), _g(4).normal(size=(2, 3)))),
    (op_add, (_g(5).normal(size=(2, 2, 3)), _g(6).normal(size=(2, 2, 3)))),
    (op_add_scalar, (_g(7).normal(size=4), -0.8)),
    (op_sub_arrays, (_g(8).normal(size=(3, 2)), _g(9).normal(size=(3, 2)))),
    (op_mul, (_g(10).normal(size=5), _g(11).normal(size=5))),
    (op_div, (_g(12).normal(size=4), _pos(13, 4) * np.array([1, -1, 1, -1]))),
    (op_pow, (_pos(14, 4), _g(15).normal(size=4))),
    (op_floordiv, C._floordiv_args(16, 5)),
    (op_neg, (_g(17).normal(size=(2, 3)),)),
    (op_exp, (_g(18).normal(size=5),)),
    (op_log, (_pos(19, 2, 3),)),
    (op_sqrt, (_pos(20, 5),)),
    (op_sin, (_g(21).normal(size=(2, 2, 2)),)),
    (op_cos, (_g(22).normal(size=5),)),
    (op_tanh, (_g(23).normal(size=(3, 2)),)),
    (op_abs, (C._away(_g(24).normal(size=6), (0.0,)),)),
    (op_maximum, (_x6, _y6)),
    (op_minimum, (_x6, _y6)),
    (op_where, (_x6, _y6)),
    (op_compare, (np.array([1.0, 2.0, -3.0, 2.0]), np.array([1.0, -2.0, 3.0, 2.5]))),
    (op_compare, (np.array([1, 2, -3, 2]), np.array([1, -2, 3, 3]))),
    (op_sum, (_g(25).normal(size=5),)),
    (op_sum, (_M,)),
    (op_sum, (_T,)),
    (op_sum, (np.array([3, -4, 5]),)),
    (op_mean, (_g(26).normal(size=5),)),
    (op_mean, (_M,)),
    (op_mean, (_T,)),
    (op_max, (C._distinct(27, 5),)),
    (op_max, (C._distinct(28, 12).reshape(3, 4),)),
    (op_max, (C._distinct(29, 12).reshape(2, 3, 2),)),
    (op_min, (C._distinct(30, 5),)),
    (op_min, (C._distinct(31, 12).reshape(4, 3),)),
    (op_min, (C._distinct(32, 12).reshape(2, 2, 3),)),
    (op_max, (np.array([3, -4, 5]),)),
    (op_sum_axis0, (_M,)),
    (op_sum_axis1, (_M,)),
    (op_sum_axis0, (_T,)),
    (op_sum_axis1, (_T,)),
    (op_sum_axis2, (_T,)),
    (op_sum_axis0, (_g(33).normal(size=4),)),
    (op_mean_axis0, (_g(69).normal(size=4),)),
    (op_max_axis0, (C._distinct(70, 5),)),
    (op_min_axis0, (C._distinct(71, 5),)),
    (op_mean_axis0, (_M,)),
    (op_mean_axis1, (_T,)),
    (op_max_axis0, (C._distinct(34, 12).reshape(3, 4),)),
    (op_max_axis1, (C._distinct(35, 12).reshape(3, 4),)),
    (op_max_axis1, (C._distinct(36, 24).reshape(2, 3, 4),)),
    (op_min_axis0, (C._distinct(37, 12).reshape(3, 4),)),
    (op_min_axis1, (C._distinct(38, 12).reshape(4, 3),)),
    (op_methods, (C._distinct(39, 12).reshape(3, 4),)),
    (op_dot_vv, (_g(40).normal(size=4), _g(41).normal(size=4))),
    (op_matmul_vv, (_g(42).normal(size=4), _g(43).normal(size=4))),
    (op_dot_mv, (_M, _g(44).normal(size=4))),
    (op_matmul_mv, (_M, _g(45).normal(size=4))),
    (op_dot_vm, (_g(46).normal(size=3), _M)),
    (op_matmul_vm, (_g(47).normal(size=3), _M)),
    (op_dot_mm, (_M, _g(48).normal(size=(4, 2)))),
    (op_matmul_mm, (_M, _g(49).normal(size=(4, 2)))),
    (op_matmul_mm, (_g(50).normal(size=(1, 3)), _g(51).normal(size=(3, 1)))),
    (op_transpose, (_M,)),
    (op_transpose_arith, (_M, _g(52).normal(size=3))),
    (op_outer, (_g(53).normal(size=3), _g(54).normal(size=4))),
    (op_norm_vec, (_g(55).normal(size=5),)),
    (op_norm_mat, (_M,)),
    (op_bc_scalar, (_M, 1.7)),
    (op_bc_scalar, (_T, -0.4)),
    (op_bc_row, (_M, _g(56).normal(size=4))),
    (op_bc_col, (_M, _g(57).normal(size=(3, 1)))),
    (op_bc_col_row, (_g(58).normal(size=(3, 1)), _g(59).normal(size=4))),
    (op_bc_col_row2, (_g(60).normal(size=(3, 1)), _g(61).normal(size=(1, 4)))),
    (op_bc_3d, (_T, _g(62).normal(size=(3, 4)), _g(63).normal(size=4),
                _g(64).normal(size=(3, 1)))),
    (op_copy, (_g(65).normal(size=(2, 3)),)),
    (op_unary_chain, (_pos(66, 5), C._away(_g(67).normal(size=5), (0.0,)))),
    (op_sum_axes, (_T,)),
    (op_sum_axes, (_g(72).normal(size=(1, 3, 1)),)),
    (op_sum_axes, (np.zeros((2, 0, 3)),)),
    (op_sum_keepdims, (_M,)),
    (op_sum_keepdims, (_g(73).normal(size=(1, 4)),)),
    (op_sum_keepdims, (np.zeros((0, 3)),)),
    (op_sum_keepdims, (_T,)),
    (op_mean_axes, (_T,)),
    (op_matmul_mm, (np.zeros((2, 0)), np.zeros((0, 3)))),
    (op_matmul_mm, (_g(74).normal(size=(0, 3)), _g(75).normal(size=(3, 2)))),
    (op_matmul_mv, (_g(76).normal(size=(2, 1)), _g(77).normal(size=1))),
    (op_matmul_vm, (np.zeros(0), np.zeros((0, 2)))),
    (op_outer, (np.zeros(0), _g(78).normal(size=2))),
    (op_layer, (_g(79).normal(size=(5, 3)), _g(80).normal(size=(3, 4)),
                _g(81).normal(size=4))),
]


def op_id(case) -> str:
    fn, args = case
    shapes = "x".join("s" if not isinstance(a, np.ndarray) else
                      f"{a.dtype.char}{'.'.join(map(str, a.shape))}" for a in args)
    return f"{fn.__name__}-{shapes}"
