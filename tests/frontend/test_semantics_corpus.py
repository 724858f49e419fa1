"""A corpus of small programs on the semantics the random-program fuzzers do not reach:
aliasing and mutation (views, slices, containers holding arrays, helpers that mutate their
argument, swaps, overlapping and repeated-index in-place updates), Python's numbers (`//`
and `%` of negatives, `**`, `round`, `int()`, `divmod`, mixed `min`/`max`, chained
comparisons, bools as ints), NumPy's (dtypes of int and bool arrays, `np.round` half to
even, `np.sign(0)`, `np.clip`, slices out of range, empty reductions, `keepdims`,
broadcasting, `argmax` ties) and control flow (`for`/`while` ... `else`, `break` and
`continue` in nested loops, the loop variable after the loop, early returns, closures,
defaults, globals). Each program was written as a probe comparing CPython with pyad.

Each category is one compiled function, the weighted sum of its programs (compiling them
one by one took minutes): its value must equal CPython's and its gradient pass
`check_against_python`; when it does not, each program is checked alone, so the failure
names the program."""
import math
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

from ..gradients import check_against_python

X = np.array([0.3, -1.2, 2.5, 0.7, -0.5, 1.6])
M = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0], [2.5, 2.0, 0.3]])
I = np.array([3, -7, 2, 0, -4, 9])
B = np.array([True, False, True, True, False, False])
G = 2.0
GA = np.array([1.0, 2.0, 3.0])


# --------------------------------------------------------------------------- aliasing and mutation


def helper_mut(a, v):
    a[0] = v
    return a


def helper_return_arg(a):
    return a


def default_arg_helper(a, scale=2.0):
    a *= scale
    return np.sum(a)


@dataclass
class Box:
    w: np.ndarray
    s: float


NT = namedtuple("NT", ["w", "s"])


def slice_write(x):
    a = x * 1.0
    b = a[1:4]
    b[0] = 7.0 * x[0]
    return np.sum(a * x)


def slice_iadd(x):
    a = x * 1.0
    b = a[::2]
    b += x[:3]
    return np.sum(a * a)


def asarray_alias(x):
    a = x * 1.0
    b = np.asarray(a)
    b[2] = x[1] * 3.0
    return np.sum(a * x)


def helper_mutates(x):
    a = x * 1.0
    b = helper_mut(a, x[3] * 2.0)
    b[1] = 5.0
    return np.sum(a * x)


def helper_returns(x):
    a = x * 1.0
    b = helper_return_arg(a)
    b *= 2.0
    return np.sum(a * x)


def list_holds_array(x):
    a = x * 1.0
    l = [a, x]
    l[0][1] = 9.0 * x[2]
    return np.sum(a * x)


def tuple_holds_array(x):
    a = x * 1.0
    t = (a, 2.0)
    t[0][1] = 9.0 * x[2]
    return np.sum(a * x)


def dict_holds_array(x):
    a = x * 1.0
    d = {"a": a}
    d["a"][3] = x[0] * x[1]
    return np.sum(a * x)


def dataclass_holds(x):
    a = x * 1.0
    b = Box(a, 1.0)
    b.w[0] = 4.0 * x[5]
    return np.sum(a * x)


def namedtuple_holds(x):
    a = x * 1.0
    t = NT(a, 2.0)
    t.w[2] = 1.5 * x[0]
    return np.sum(a * x) + t.s


def swap_array(x):
    a = x * 1.0
    a[0], a[3] = a[3], a[0]
    return np.sum(a * np.arange(6.0))


def swap_list(x):
    l = [x[0], x[1], x[2]]
    l[0], l[2] = l[2], l[0]
    return l[0] * 1.0 + l[1] * 2.0 + l[2] * 3.0


def fancy_repeat_iadd(x):
    a = x * 1.0
    idx = np.array([0, 0, 2])
    a[idx] += x[:3]
    return np.sum(a * x)


def fancy_repeat_add_at(x):
    a = x * 1.0
    idx = np.array([0, 0, 2])
    np.add.at(a, idx, x[:3])
    return np.sum(a * x)


def overlap_iadd(x):
    a = x * 1.0
    a[1:] += a[:-1]
    return np.sum(a * x)


def overlap_iadd2(x):
    a = x * 1.0
    a[:-1] += a[1:]
    return np.sum(a * x)


def overlap_assign(x):
    a = x * 1.0
    a[1:] = a[:-1]
    return np.sum(a * x)


def overlap_assign2(x):
    a = x * 1.0
    a[:-1] = a[1:]
    return np.sum(a * x)


def overlap_reverse(x):
    a = x * 1.0
    a[:] = a[::-1]
    return np.sum(a * np.arange(6.0))


def self_mul_view2(x):
    a = x * 1.0
    a[1:] *= a[0]
    a[:] -= a[2]
    return np.sum(a * x)


def ref_before_iadd(x):
    a = x * 1.0
    b = a
    a += 1.0
    return np.sum(b * x)


def default_arg(x):
    a = x * 1.0
    s = default_arg_helper(a)
    return s + np.sum(a * x)


def loop_accum_copy(x):
    acc = np.zeros(6)
    hist = []
    for i in range(3):
        acc = acc + x * i
        hist.append(acc)
    return np.sum(hist[0] * x) + np.sum(hist[2])


def inplace_through_ellipsis(x):
    a = x * 1.0
    b = a[...]
    b[1] = 3.0
    return np.sum(a * x)


def copy_is_copy(x):
    a = x * 1.0
    b = a.copy()
    b[0] = 100.0
    c = np.array(a)
    c[1] = 100.0
    return np.sum(a * x)


def list_append_same(x):
    a = x * 1.0
    l = []
    l.append(a)
    l.append(a)
    l[0][0] = 5.0
    return np.sum(l[1] * x)


def aliasing_and_mutation(x):
    return (1.0 * slice_write(x) +
            2.0 * slice_iadd(x) +
            3.0 * asarray_alias(x) +
            4.0 * helper_mutates(x) +
            5.0 * helper_returns(x) +
            6.0 * list_holds_array(x) +
            7.0 * tuple_holds_array(x) +
            8.0 * dict_holds_array(x) +
            9.0 * dataclass_holds(x) +
            10.0 * namedtuple_holds(x) +
            11.0 * swap_array(x) +
            12.0 * swap_list(x) +
            13.0 * fancy_repeat_iadd(x) +
            14.0 * fancy_repeat_add_at(x) +
            15.0 * overlap_iadd(x) +
            16.0 * overlap_iadd2(x) +
            17.0 * overlap_assign(x) +
            18.0 * overlap_assign2(x) +
            19.0 * overlap_reverse(x) +
            20.0 * self_mul_view2(x) +
            21.0 * ref_before_iadd(x) +
            22.0 * default_arg(x) +
            23.0 * loop_accum_copy(x) +
            24.0 * inplace_through_ellipsis(x) +
            25.0 * copy_is_copy(x) +
            26.0 * list_append_same(x))


ALIASING_AND_MUTATION = [slice_write, slice_iadd, asarray_alias, helper_mutates, helper_returns,
    list_holds_array, tuple_holds_array, dict_holds_array, dataclass_holds, namedtuple_holds,
    swap_array, swap_list, fancy_repeat_iadd, fancy_repeat_add_at, overlap_iadd, overlap_iadd2,
    overlap_assign, overlap_assign2, overlap_reverse, self_mul_view2, ref_before_iadd,
    default_arg, loop_accum_copy, inplace_through_ellipsis, copy_is_copy, list_append_same]


# ----------------------------------------------------------------- aliasing and mutation, matrices


def row_loop(A):
    B = A * 1.0
    for row in B:
        row[0] = row[1] * 2.0
    return np.sum(B * A)


def row_loop_imul_slice(A):
    B = A * 1.0
    for row in B:
        row[1:] *= row[0]
    return np.sum(B * A)


def swap_rows(A):
    B = A * 1.0
    B[0], B[1] = B[1], B[0]     # views: both rows end up equal to row 1
    return np.sum(B * A)


def view_of_view(A):
    B = A * 1.0
    r = B[1]
    c = r[1:3]
    c[0] = A[0, 0] * 5.0
    return np.sum(B * A)


def col_view(A):
    B = A * 1.0
    c = B[:, 1]
    c *= 3.0
    return np.sum(B * A)


def transpose_write(A):
    B = A * 1.0
    T = B.T
    T[0, 1] = 11.0 * A[2, 2]
    return np.sum(B * A)


def row_in_list(A):
    B = A * 1.0
    rows = [B[0], B[2]]
    rows[1][0] = 3.0 * A[0, 1]
    return np.sum(B * A)


def tuple_unpack_views(A):
    B = A * 1.0
    r0, r1, r2 = B
    r1[:] = r0 * r2
    return np.sum(B * A)


def enumerate_rows(A):
    B = A * 1.0
    for i, r in enumerate(B):
        r[i] = 0.0
    return np.sum(B * A)


def aliasing_and_mutation_matrices(x):
    return (1.0 * row_loop(x) +
            2.0 * row_loop_imul_slice(x) +
            3.0 * swap_rows(x) +
            4.0 * view_of_view(x) +
            5.0 * col_view(x) +
            6.0 * transpose_write(x) +
            7.0 * row_in_list(x) +
            8.0 * tuple_unpack_views(x) +
            9.0 * enumerate_rows(x))


ALIASING_AND_MUTATION_MATRICES = [row_loop, row_loop_imul_slice, swap_rows, view_of_view,
    col_view, transpose_write, row_in_list, tuple_unpack_views, enumerate_rows]


# ------------------------------------------------------------------- aliasing in helpers and loops


def helper_inplace_list(l, v):
    l[0] += v
    return l


def helper_arr_iadd(a, v):
    a += v


def helper_arr_slice_set(a, v):
    a[1:3] = v


def helper_rebind(a):
    a = a * 2.0
    return np.sum(a)


def helper_mutates_list_item(x):
    a = x * 1.0
    l = [a, x]
    helper_inplace_list(l, 1.0)
    return np.sum(a * x)


def helper_iadd(x):
    a = x * 1.0
    helper_arr_iadd(a, x)
    return np.sum(a * x)


def helper_slice_set(x):
    a = x * 1.0
    helper_arr_slice_set(a, x[0])
    return np.sum(a * x)


def helper_on_view(x):
    a = x * 1.0
    helper_arr_iadd(a[2:], x[:4])
    return np.sum(a * x)


def view_loop_carried(x):
    a = x * 1.0
    v = a[1:]
    for i in range(3):
        v[i] += a[i]
    return np.sum(a * x)


def cond_view(x):
    a = x * 1.0
    v = a[:3] if x[0] > 0 else a[3:]
    v[0] = 10.0 * x[1]
    return np.sum(a * x)


def cond_alias(x):
    a = x * 1.0
    b = x * 2.0
    c = a if x[0] > 0 else b
    c += 1.0
    return np.sum(a * x) + np.sum(b)


def loop_alias_swap(x):
    a = x * 1.0
    b = x * 2.0
    for i in range(3):
        a, b = b, a
        a[i] += 1.0
    return np.sum(a * x) + 2.0 * np.sum(b * x)


def double_buffer(x):
    cur = x * 1.0
    nxt = np.zeros(6)
    for t in range(3):
        nxt[1:-1] = 0.5 * (cur[:-2] + cur[2:])
        nxt[0] = cur[0]
        nxt[-1] = cur[-1]
        cur, nxt = nxt, cur
    return np.sum(cur * x)


def dict_loop_update(x):
    p = {"a": x * 1.0, "b": x[:2] * 1.0}
    for i in range(3):
        p["a"] -= 0.1 * x
        p["b"] += x[:2]
    return np.sum(p["a"] * x) + np.sum(p["b"])


def tuple_of_views(x):
    a = x * 1.0
    t = (a[:3], a[3:])
    for v in t:
        v += 1.0
    return np.sum(a * x)


def iadd_fancy_bool(x):
    a = x * 1.0
    a[x > 0] += 1.0
    a[x < 0] *= x[x < 0]
    return np.sum(a * x)


def setitem_fancy_dup(x):
    a = x * 1.0
    a[[0, 0, 1]] = x[[1, 2, 3]]
    return np.sum(a * x)


def getitem_fancy_then_write(x):
    a = x * 1.0
    b = a[[0, 1, 2]]
    b[0] = 100.0
    return np.sum(a * x)


def chained_fancy_write(x):
    a = x * 1.0
    a[[1, 2]][0] = 99.0     # copy: no effect in numpy
    return np.sum(a * x)


def neg_step_iadd(x):
    a = x * 1.0
    a[::-1] += a
    return np.sum(a * x)


def reverse_view_assign(x):
    a = x * 1.0
    b = a[::-1]
    b[0] = 5.0
    return np.sum(a * x)


def aliasing_in_helpers_and_loops(x):
    return (1.0 * helper_mutates_list_item(x) +
            2.0 * helper_iadd(x) +
            3.0 * helper_slice_set(x) +
            4.0 * helper_on_view(x) +
            5.0 * view_loop_carried(x) +
            6.0 * cond_view(x) +
            7.0 * cond_alias(x) +
            8.0 * loop_alias_swap(x) +
            9.0 * double_buffer(x) +
            10.0 * dict_loop_update(x) +
            11.0 * tuple_of_views(x) +
            12.0 * iadd_fancy_bool(x) +
            13.0 * setitem_fancy_dup(x) +
            14.0 * getitem_fancy_then_write(x) +
            15.0 * chained_fancy_write(x) +
            16.0 * neg_step_iadd(x) +
            17.0 * reverse_view_assign(x))


ALIASING_IN_HELPERS_AND_LOOPS = [helper_mutates_list_item, helper_iadd, helper_slice_set,
    helper_on_view, view_loop_carried, cond_view, cond_alias, loop_alias_swap, double_buffer,
    dict_loop_update, tuple_of_views, iadd_fancy_bool, setitem_fancy_dup,
    getitem_fancy_then_write, chained_fancy_write, neg_step_iadd, reverse_view_assign]


# ------------------------------------------------------------------- aliasing in helpers, matrices


def loop_helper_rows(A):
    B = A * 1.0
    for i in range(3):
        helper_arr_iadd(B[i], A[(i + 1) % 3])
    return np.sum(B * A)


def list_of_rows_loop(A):
    B = A * 1.0
    rows = [B[0], B[1], B[2]]
    for r in rows:
        r *= 2.0
    return np.sum(B * A)


def chained_slice_write(A):
    B = A * 1.0
    B[1:][0][1] = 7.0 * A[0, 0]
    return np.sum(B * A)


def matrix_inplace_T(A):
    B = A * 1.0
    B += B.T
    return np.sum(B * A)


def matmul_inplace(A):
    B = A * 1.0
    B[0] = B[1] @ A
    return np.sum(B * A)


def aliasing_in_helpers_matrices(x):
    return (1.0 * loop_helper_rows(x) +
            2.0 * list_of_rows_loop(x) +
            3.0 * chained_slice_write(x) +
            4.0 * matrix_inplace_T(x) +
            5.0 * matmul_inplace(x))


ALIASING_IN_HELPERS_MATRICES = [loop_helper_rows, list_of_rows_loop, chained_slice_write,
    matrix_inplace_T, matmul_inplace]


# ----------------------------------------------------------------------------- views NumPy returns


def asarray_dtype(x):
    a = x * 1.0
    b = np.asarray(a, dtype=float)
    b[0] = 9.0
    return np.sum(a * x)


def atleast(x):
    a = x * 1.0
    b = np.atleast_1d(a)
    b[2] = 9.0
    return np.sum(a * x)


def expand(x):
    a = x * 1.0
    b = np.expand_dims(a, 0)
    b[0, 1] = 9.0
    return np.sum(a * x)


def none_index(x):
    a = x * 1.0
    b = a[None, :]
    b[0, 1] = 9.0
    return np.sum(a * x)


def T_1d(x):
    a = x * 1.0
    b = a.T
    b[0] = 9.0
    return np.sum(a * x)


def array_copy(x):
    a = x * 1.0
    b = np.array(a)
    b[0] = 9.0
    return np.sum(a * x) + np.sum(b)


def astype_copy(x):
    a = x * 1.0
    b = a.astype(float)
    b[0] = 9.0
    return np.sum(a * x) + np.sum(b)


def unpack_1d(x):
    a = x[:2] * 1.0
    u, v = a
    a[0] = 9.0
    return u * v + a[0]


def iter_1d(x):
    a = x * 1.0
    s = 0.0
    for v in a:
        a[0] = 100.0
        s += v
    return s


def enumerate_mut(x):
    a = x * 1.0
    s = 0.0
    for i, v in enumerate(a):
        if i + 1 < 6:
            a[i + 1] += v
        s += v
    return s


def zip_mut(x):
    a = x * 1.0
    s = 0.0
    for u, v in zip(a, a[1:]):
        a[-1] = 7.0
        s += u * v
    return s


def list_of_array_iter(x):
    a = x * 1.0
    l = list(a)
    a[0] = 9.0
    return l[0] * 2.0


def scalar_elem_after_write(x):
    a = x * 1.0
    e = a[1]
    a[1] = 100.0
    return e * 2.0


def views_numpy_returns(x):
    return (1.0 * asarray_dtype(x) +
            2.0 * atleast(x) +
            3.0 * expand(x) +
            4.0 * none_index(x) +
            5.0 * T_1d(x) +
            6.0 * array_copy(x) +
            7.0 * astype_copy(x) +
            8.0 * unpack_1d(x) +
            9.0 * iter_1d(x) +
            10.0 * enumerate_mut(x) +
            11.0 * zip_mut(x) +
            12.0 * list_of_array_iter(x) +
            13.0 * scalar_elem_after_write(x))


VIEWS_NUMPY_RETURNS = [asarray_dtype, atleast, expand, none_index, T_1d, array_copy,
    astype_copy, unpack_1d, iter_1d, enumerate_mut, zip_mut, list_of_array_iter,
    scalar_elem_after_write]


# ------------------------------------------------------------------- views NumPy returns, matrices


def swapaxes_(A):
    B = A * 1.0
    C = B.swapaxes(0, 1)
    C[0, 1] = 9.0
    return np.sum(B * A)


def transpose_fn(A):
    B = A * 1.0
    C = np.transpose(B)
    C[0, 1] = 9.0
    return np.sum(B * A)


def row_of_T(A):
    B = A * 1.0
    c = B.T[1]
    c[0] = 9.0
    return np.sum(B * A)


def iter_2d_mut(A):
    B = A * 1.0
    s = 0.0
    for r in B:
        B[2, 0] = 100.0
        s += r[0]
    return s


def row_after_write(A):
    B = A * 1.0
    r = B[1]
    B[1, 1] = 100.0
    return np.sum(r * A[0])


def views_numpy_returns_matrices(x):
    return (1.0 * swapaxes_(x) +
            2.0 * transpose_fn(x) +
            3.0 * row_of_T(x) +
            4.0 * iter_2d_mut(x) +
            5.0 * row_after_write(x))


VIEWS_NUMPY_RETURNS_MATRICES = [swapaxes_, transpose_fn, row_of_T, iter_2d_mut, row_after_write]


# -------------------------------------------------------------------------------------- containers


def list_repeat_arrays(x):
    l = [np.zeros(2)] * 3
    l[1] += x[:2]
    return np.sum(l[0] * x[2:4]) + np.sum(l[2])


def list_repeat_setitem(x):
    l = [x[:2] * 1.0] * 2
    l[0][1] = 5.0 * x[3]
    return np.sum(l[1] * x[:2])


def list_concat_alias(x):
    a = x[:2] * 1.0
    l = [a] + [a]
    l[0] *= 3.0
    return np.sum(l[1] * x[:2])


def tuple_repeat_alias(x):
    a = x[:2] * 1.0
    t = (a,) * 2
    t[0][0] = 9.0
    return np.sum(t[1] * x[:2])


def closure_sees_mutation(x):
    a = x * 1.0
    f = lambda: np.sum(a * x)
    a[0] = 10.0
    return f()


def closure_sees_rebind(x):
    a = x * 1.0
    f = lambda: np.sum(a * x)
    a = x * 3.0
    return f()


def closure_default_array(x):
    a = x * 1.0
    f = lambda t, a=a: np.sum(a * t)
    a[0] = 10.0
    return f(x)


def sum_start_array(x):
    return np.sum(sum([x[:2], x[2:4]], np.ones(2)) * x[4:])


def comp_cond(x):
    return sum(v * v for v in x if v > 0) + len([v for v in x if v < 0])


def list_in_loop_pop(x):
    l = []
    for i in range(6):
        l.append(x[i])
    s = 0.0
    while len(l) > 2:
        s = s * 0.5 + l.pop()
    return s + l[0]


def list_plus_rebind(x):
    l = [x[0]]
    m = l
    l = l + [x[1]]
    return sum(m) * 1.0 + len(m)


def list_alias_append(x):
    l = [x[0]]
    m = l
    l.append(x[1])
    return sum(m) + len(m)


def list_extend_self(x):
    l = [x[0], x[1]]
    l.extend(l)
    return sum(l) + len(l)


def list_of_lists_alias(x):
    row = [x[0], x[1]]
    m = [row, row]
    m[0][0] = x[2]
    return m[1][0] * 2.0


def list_copy_shallow(x):
    a = x[:2] * 1.0
    l = [a, a]
    c = l.copy()
    c[0] += 1.0
    return np.sum(l[1] * x[:2])


def list_slice_copy_alias(x):
    a = x[:2] * 1.0
    l = [a, x[2:4] * 1.0]
    c = l[:]
    c[0] += 1.0
    return np.sum(l[0] * x[:2])


def containers(x):
    return (1.0 * list_repeat_arrays(x) +
            2.0 * list_repeat_setitem(x) +
            3.0 * list_concat_alias(x) +
            4.0 * tuple_repeat_alias(x) +
            5.0 * closure_sees_mutation(x) +
            6.0 * closure_sees_rebind(x) +
            7.0 * closure_default_array(x) +
            8.0 * sum_start_array(x) +
            9.0 * comp_cond(x) +
            10.0 * list_in_loop_pop(x) +
            11.0 * list_plus_rebind(x) +
            12.0 * list_alias_append(x) +
            13.0 * list_extend_self(x) +
            14.0 * list_of_lists_alias(x) +
            15.0 * list_copy_shallow(x) +
            16.0 * list_slice_copy_alias(x))


CONTAINERS = [list_repeat_arrays, list_repeat_setitem, list_concat_alias, tuple_repeat_alias,
    closure_sees_mutation, closure_sees_rebind, closure_default_array, sum_start_array,
    comp_cond, list_in_loop_pop, list_plus_rebind, list_alias_append, list_extend_self,
    list_of_lists_alias, list_copy_shallow, list_slice_copy_alias]


# ---------------------------------------------------------------------------------- python numbers


def floordiv_neg(x):
    return (-7) // 2 + (-7.5) // 2.0 + 7 // -2 + x // -0.7


def mod_neg(x):
    return (-7) % 3 + 7 % -3 + (-7.5) % 2.0 + x % -0.7 + (-x) % 0.7


def pow_neg_base(x):
    return (-2.0) ** 3 + (-x) ** 2 + (-x) ** 3 + x ** -2


def round_half(x):
    return round(2.5) + round(3.5) + round(-2.5) + round(0.5) + round(x)


def int_trunc(x):
    return int(-x) + int(x * 3.7) + int(-2.7)


def abs_mix(x):
    return abs(-3) + abs(-x) + abs(-2.5)


def divmod_f(x):
    q, r = divmod(x * 10.0, 3.0)
    q2, r2 = divmod(-x * 10.0, 3.0)
    return q + r * 2.0 + q2 + r2 * 3.0


def minmax_mixed(x):
    return min(1, x) + max(2, x, 0.5) + min(3, 2.5) + max(True, 0.5)


def chain_cmp(x):
    r = 0.0
    if 0.0 < x < 1.0:
        r += 1.0
    if 0.0 < x > 0.2:
        r += 2.0
    if 1 < 2 < 3 > 2:
        r += x
    return r


def bool_arith(x):
    return True + 1 + (x > 0.5) * x + (x > 0.5) + True * 2.5


def int_of_bool(x):
    return int(x > 0.5) + float(x < 0.5) * x


def inf_compare(x):
    return min(x, math.inf) + max(-math.inf, x)


def floor_int_type(x):
    return math.floor(x * 3.3)


def round_int_type(x):
    return round(x * 7.3)


def float_floordiv_exact(x):
    return (x * 0.0 + 1.0) // 0.1


def mod_float_exact(x):
    return (x * 0.0 + 1.0) % 0.1


def modneg_zero(x):
    return (-6.0 * (x * 0.0 + 1.0)) % 3.0


def sum_builtin_mixed(x):
    return sum([1, 2, x, True])


def python_numbers(x):
    return (1.0 * floordiv_neg(x) +
            2.0 * mod_neg(x) +
            3.0 * pow_neg_base(x) +
            4.0 * round_half(x) +
            5.0 * int_trunc(x) +
            6.0 * abs_mix(x) +
            7.0 * divmod_f(x) +
            8.0 * minmax_mixed(x) +
            9.0 * chain_cmp(x) +
            10.0 * bool_arith(x) +
            11.0 * int_of_bool(x) +
            12.0 * inf_compare(x) +
            13.0 * floor_int_type(x) +
            14.0 * round_int_type(x) +
            15.0 * float_floordiv_exact(x) +
            16.0 * mod_float_exact(x) +
            17.0 * modneg_zero(x) +
            18.0 * sum_builtin_mixed(x))


PYTHON_NUMBERS = [floordiv_neg, mod_neg, pow_neg_base, round_half, int_trunc, abs_mix, divmod_f,
    minmax_mixed, chain_cmp, bool_arith, int_of_bool, inf_compare, floor_int_type,
    round_int_type, float_floordiv_exact, mod_float_exact, modneg_zero, sum_builtin_mixed]


# ------------------------------------------------------------------------------------- python ints


def mod_int(n):
    return (-n) % 3 + n % -4 + (-n) // 3


def pow_int_int(n):
    return n ** 2 + (-n) ** 3 + 2 ** n


def divmod_i(n):
    q, r = divmod(-n, 3)
    return q * 10 + r


def minmax_int_result(n):
    return max(n, 3) + min(n, -1)


def bool_int_result(n):
    return True + n + (n > 2)


def int_float_mix(n):
    return n / 2 + n // 2 + n * 0.5


def float_int_compare(n):
    return 1.0 if n == 3.0 else 2.0


def aug_int_float(n):
    k = n
    k += 0.5
    k //= 2
    return k


def int_division_big(n):
    return (n * 10**15 + 1) // 7


def python_ints(x):
    return (1.0 * mod_int(x) +
            2.0 * pow_int_int(x) +
            3.0 * divmod_i(x) +
            4.0 * minmax_int_result(x) +
            5.0 * bool_int_result(x) +
            6.0 * int_float_mix(x) +
            7.0 * float_int_compare(x) +
            8.0 * aug_int_float(x) +
            9.0 * int_division_big(x))


PYTHON_INTS = [mod_int, pow_int_int, divmod_i, minmax_int_result, bool_int_result,
    int_float_mix, float_int_compare, aug_int_float, int_division_big]


# --------------------------------------------------------------------------------- numpy semantics


def int_arr_floordiv(x):
    return np.sum((I // 2) * x) + np.sum((I % 3) * x)


def int_arr_truediv(x):
    return np.sum((I / 2) * x)


def int_arr_neg_floordiv(x):
    return np.sum((I // -3) * x) + np.sum((I % -3) * x)


def bool_sum(x):
    return np.sum(B) * x[0] + np.sum(x > 0) * 1.0


def bool_mean(x):
    return np.mean(x > 0) + np.mean(B)


def np_round_half(x):
    return np.sum(np.round(x * 0.0 + np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4])) * x)


def np_round_dec(x):
    return np.sum(np.round(x * 1.2345, 2))


def sign0(x):
    return np.sum(np.sign(x) * x) + np.sign(x[3]) + np.sum(np.sign(I))


def clip_(x):
    return np.sum(np.clip(x, -0.4, 1.0) * x)


def clip_ints(x):
    return np.sum(np.clip(I, -3, 4) * x)


def neg_slice(x):
    return np.sum(x[-3:]) + np.sum(x[:-4]) + np.sum(x[-100:100]) + np.sum(x[4:2]) + np.sum(x[::-2])


def out_range_slice(x):
    return np.sum(x[10:]) + np.sum(x[2:100]) + x[-1]


def empty_red(x):
    e = x[3:3]
    return np.sum(e) + np.prod(e) + float(e.size) + np.sum(x[5:1])


def where_mixed(x):
    return np.sum(np.where(x > 0, x, 0)) + np.sum(np.where(x > 0, 1, -1) * x)


def cumsum_int(x):
    return np.sum(np.cumsum(I) * x) + np.sum(np.cumsum(x > 0) * x)


def argmax_tie(x):
    y = np.array([1.0, 3.0, 3.0, 2.0, 3.0, 0.0]) + x * 0.0
    return int(np.argmax(y)) + int(np.argmin(-y)) + int(np.argmin(y * 0.0))


def int_sum_type(x):
    return np.sum(I) * 1.0 + np.sum(I * 2) + np.prod(I[:3])


def int_mean(x):
    return np.mean(I) + np.mean(I[:3] * x[:3])


def power_int_arr(x):
    return np.sum((I ** 2) * x) + np.sum(x ** 2) + np.sum(np.abs(x) ** 0.5)


def floor_arr(x):
    return np.sum(np.floor(x) + np.ceil(x) + np.trunc(x))


def floordiv_arr(x):
    return np.sum(x // 0.7) + np.sum(np.floor_divide(x, -0.7))


def var_std(x):
    return np.var(x) + np.std(x) + np.var(x, ddof=1)


def median_(x):
    return np.median(x) + np.median(x[:5])


def any_all(x):
    return float(np.any(x > 2.0)) + float(np.all(x > -2.0)) + float(np.any(x[3:3] > 0))


def count_nonzero(x):
    return np.count_nonzero(x) + int(np.sum(x != 0))


def dot_int(x):
    return np.dot(I, x) + np.dot(I, I)


def arange_float(x):
    return np.sum(np.arange(0.0, 1.0, 0.3) * x[0]) + len(np.arange(0.5, 2.0, 0.5))


def linspace_(x):
    return np.sum(np.linspace(0.0, 1.0, 5) * x[0]) + np.sum(np.linspace(0, 1, 5, endpoint=False))


def astype_int(x):
    return np.sum(x.astype(int) * 1.0) + np.sum((x * 2.7).astype(np.int64))


def int_arr_iadd_float(x):
    a = I.copy()
    a += 1
    return np.sum(a * x)


def diff_(x):
    return np.sum(np.diff(x) * x[1:]) + np.sum(np.diff(x, n=2))


def exp_log(x):
    return np.sum(np.log1p(np.abs(x)) + np.expm1(x) + np.exp2(x) + np.log2(np.abs(x) + 1.0))


def logical_ops(x):
    m = np.logical_and(x > -1, np.logical_not(x > 2))
    return np.sum(np.where(m | (x == 0), x, 0.0)) + np.sum(np.where(~m, 1.0, 0.0))


def isclose_(x):
    return float(np.sum(np.isclose(x, 0.0))) + float(np.allclose(x, x + 1e-12))


def numpy_semantics(x):
    return (1.0 * int_arr_floordiv(x) +
            2.0 * int_arr_truediv(x) +
            3.0 * int_arr_neg_floordiv(x) +
            4.0 * bool_sum(x) +
            5.0 * bool_mean(x) +
            6.0 * np_round_half(x) +
            7.0 * np_round_dec(x) +
            8.0 * sign0(x) +
            9.0 * clip_(x) +
            10.0 * clip_ints(x) +
            11.0 * neg_slice(x) +
            12.0 * out_range_slice(x) +
            13.0 * empty_red(x) +
            14.0 * where_mixed(x) +
            15.0 * cumsum_int(x) +
            16.0 * argmax_tie(x) +
            17.0 * int_sum_type(x) +
            18.0 * int_mean(x) +
            19.0 * power_int_arr(x) +
            20.0 * floor_arr(x) +
            21.0 * floordiv_arr(x) +
            22.0 * var_std(x) +
            23.0 * median_(x) +
            24.0 * any_all(x) +
            25.0 * count_nonzero(x) +
            26.0 * dot_int(x) +
            27.0 * arange_float(x) +
            28.0 * linspace_(x) +
            29.0 * astype_int(x) +
            30.0 * int_arr_iadd_float(x) +
            31.0 * diff_(x) +
            32.0 * exp_log(x) +
            33.0 * logical_ops(x) +
            34.0 * isclose_(x))


NUMPY_SEMANTICS = [int_arr_floordiv, int_arr_truediv, int_arr_neg_floordiv, bool_sum, bool_mean,
    np_round_half, np_round_dec, sign0, clip_, clip_ints, neg_slice, out_range_slice, empty_red,
    where_mixed, cumsum_int, argmax_tie, int_sum_type, int_mean, power_int_arr, floor_arr,
    floordiv_arr, var_std, median_, any_all, count_nonzero, dot_int, arange_float, linspace_,
    astype_int, int_arr_iadd_float, diff_, exp_log, logical_ops, isclose_]


# ----------------------------------------------------------------------- numpy semantics, matrices


def keepdims_(A):
    s = np.sum(A, axis=1, keepdims=True)
    m = np.max(A, axis=0, keepdims=True)
    return np.sum(A / s) + np.sum(A - m)


def broadcast_edge(A):
    c = np.ones((3, 1)) * A[:, :1]
    r = A[:1, :] + A
    return np.sum(c * A) + np.sum(r) + np.sum(A[:, 1:2] * A[0])


def mean_axis(A):
    return np.sum(np.mean(A, axis=0) * A[0]) + np.sum(np.mean(A, axis=-1))


def numpy_semantics_matrices(x):
    return (1.0 * keepdims_(x) +
            2.0 * broadcast_edge(x) +
            3.0 * mean_axis(x))


NUMPY_SEMANTICS_MATRICES = [keepdims_, broadcast_edge, mean_axis]


# -------------------------------------------------------------------------- control flow and calls


def recursion_helper(n, t):
    if n == 0:
        return t
    return recursion_helper(n - 1, t * 1.1)


def for_else(x):
    s = 0.0
    for i in range(6):
        if x[i] > 2.0:
            s += x[i]
            break
        s += 0.1 * x[i]
    else:
        s += 100.0
    return s


def for_else_nobreak(x):
    s = 0.0
    for i in range(6):
        if x[i] > 20.0:
            break
        s += x[i]
    else:
        s *= 2.0
    return s


def while_else(x):
    i = 0
    s = 0.0
    while i < 6:
        if x[i] < -1.0:
            break
        s += x[i] * x[i]
        i += 1
    else:
        s = -s
    return s + i


def nested_break_continue(x):
    s = 0.0
    for i in range(6):
        if i == 1:
            continue
        for j in range(6):
            if j > i:
                break
            if (i + j) % 2 == 0:
                continue
            s += x[i] * x[j]
    return s


def loop_var_after(x):
    s = 0.0
    for i in range(4):
        s += x[i]
    return s * i


def loop_var_after_break(x):
    for i in range(6):
        if x[i] > 2.0:
            break
    return x[i] * i


def early_return(x):
    for i in range(6):
        if x[i] < 0:
            return x[i] * i
    return 0.0


def early_return_nested(x):
    for i in range(6):
        for j in range(i):
            if x[i] * x[j] < -1.0:
                return x[i] + x[j] * 10.0
    return -1.0


def while_true_break(x):
    s = x[0]
    n = 0
    while True:
        s = s * 1.5
        n += 1
        if s > 3.0:
            break
    return s + n


def range_neg_step(x):
    s = 0.0
    for i in range(5, -1, -2):
        s = s * x[i] + 1.0
    return s


def range_empty(x):
    s = x[0]
    for i in range(3, 1):
        s += 100.0
    return s


def enumerate_start(x):
    s = 0.0
    for k, v in enumerate(x, 1):
        s += k * v
    return s


def zip_uneven(x):
    s = 0.0
    for a, b in zip(x, x[2:]):
        s += a * b
    return s


def reversed_loop(x):
    s = 0.0
    for v in reversed(x):
        s = s * 0.5 + v
    return s


def closure_default(x):
    k = 2.0
    f = lambda t, k=k: t * k
    k = 3.0
    return f(x[0]) + k


def closure_late(x):
    k = 2.0
    def f(t):
        return t * k
    k = 3.0
    return f(x[0])


def uses_global(x):
    return x[0] * G + np.sum(GA * x[:3])


def ternary_chain(x):
    s = 0.0
    for v in x:
        s += v if v > 1 else (-v if v < -1 else v * v)
    return s


def bool_shortcircuit(x):
    s = 0.0
    for i in range(6):
        if i < 5 and x[i + 1] > 0 or i == 5:
            s += x[i]
    return s


def and_or_value(x):
    a = x[0] > 0 and x[1]
    b = x[1] > 0 or x[2]
    return a + b


def and_or_value2(x):
    return (0.0 or x[0]) + (x[1] and 2.0)


def if_array_elem(x):
    return x[0] * 2.0 if x[3] else x[1]


def nested_func_def(x):
    def sq(t):
        return t * t
    def g(t):
        return sq(t) + 1.0
    return g(x[0]) * g(x[1])


def recursion(x):
    return recursion_helper(3, x[0])


def augassign_int_loop(x):
    n = 0
    for v in x:
        if v > 0:
            n += 1
    return n


def int_counter_float(x):
    n = 0
    for v in x:
        n += v > 0
    return n * x[0]


def min_builtin_over_array(x):
    return min(x) + max(x) + sum(x)


def sorted_builtin(x):
    s = sorted(x)
    return s[0] * 3.0 + s[-1]


def len_loop(x):
    return len(x) * x[0] + len(x[1:4])


def unpack_star(x):
    a, *rest = x[:4]
    return a * np.sum(rest) if False else a * sum(rest)


def tuple_return_index(x):
    t = (x[0], x[1] * 2.0, x[2])
    return t[-1] + t[1]


def list_negative_index(x):
    l = [x[0], x[1], x[2]]
    return l[-1] * l[-3]


def control_flow_and_calls(x):
    return (1.0 * for_else(x) +
            2.0 * for_else_nobreak(x) +
            3.0 * while_else(x) +
            4.0 * nested_break_continue(x) +
            5.0 * loop_var_after(x) +
            6.0 * loop_var_after_break(x) +
            7.0 * early_return(x) +
            8.0 * early_return_nested(x) +
            9.0 * while_true_break(x) +
            10.0 * range_neg_step(x) +
            11.0 * range_empty(x) +
            12.0 * enumerate_start(x) +
            13.0 * zip_uneven(x) +
            14.0 * reversed_loop(x) +
            15.0 * closure_default(x) +
            16.0 * closure_late(x) +
            17.0 * uses_global(x) +
            18.0 * ternary_chain(x) +
            19.0 * bool_shortcircuit(x) +
            20.0 * and_or_value(x) +
            21.0 * and_or_value2(x) +
            22.0 * if_array_elem(x) +
            23.0 * nested_func_def(x) +
            24.0 * recursion(x) +
            25.0 * augassign_int_loop(x) +
            26.0 * int_counter_float(x) +
            27.0 * min_builtin_over_array(x) +
            28.0 * sorted_builtin(x) +
            29.0 * len_loop(x) +
            30.0 * unpack_star(x) +
            31.0 * tuple_return_index(x) +
            32.0 * list_negative_index(x))


CONTROL_FLOW_AND_CALLS = [for_else, for_else_nobreak, while_else, nested_break_continue,
    loop_var_after, loop_var_after_break, early_return, early_return_nested, while_true_break,
    range_neg_step, range_empty, enumerate_start, zip_uneven, reversed_loop, closure_default,
    closure_late, uses_global, ternary_chain, bool_shortcircuit, and_or_value, and_or_value2,
    if_array_elem, nested_func_def, recursion, augassign_int_loop, int_counter_float,
    min_builtin_over_array, sorted_builtin, len_loop, unpack_star, tuple_return_index,
    list_negative_index]


CATEGORIES = [
    (aliasing_and_mutation, ALIASING_AND_MUTATION, (X,)),
    (aliasing_and_mutation_matrices, ALIASING_AND_MUTATION_MATRICES, (M,)),
    (aliasing_in_helpers_and_loops, ALIASING_IN_HELPERS_AND_LOOPS, (X,)),
    (aliasing_in_helpers_matrices, ALIASING_IN_HELPERS_MATRICES, (M,)),
    (views_numpy_returns, VIEWS_NUMPY_RETURNS, (X,)),
    (views_numpy_returns_matrices, VIEWS_NUMPY_RETURNS_MATRICES, (M,)),
    (containers, CONTAINERS, (X,)),
    (python_numbers, PYTHON_NUMBERS, (0.73,)),
    (python_ints, PYTHON_INTS, (5,)),
    (numpy_semantics, NUMPY_SEMANTICS, (X,)),
    (numpy_semantics_matrices, NUMPY_SEMANTICS_MATRICES, (M,)),
    (control_flow_and_calls, CONTROL_FLOW_AND_CALLS, (X,)),
]


@pytest.mark.parametrize("combined, programs, args", CATEGORIES,
                         ids=[c[0].__name__ for c in CATEGORIES])
def test_corpus_agrees_with_python(combined, programs, args):
    try:
        check_against_python(combined, *args)
    except AssertionError:
        for fn in programs:   # name the program that differs
            check_against_python(fn, *args)
        raise
