"""What a probe of ordinary numerical code (350 functions written as people write them) found:

- a `range(...)` value used as an array was read as its three bounds: `np.array(range(n))`
  was `[0, n, 1]` (a silently wrong value when n = 3), `a, b, c = range(3)` bound 0, 3, 1,
  `np.array([range(2), range(2)])` had rows of 3, `f` returning `range(n)` returned the
  tuple `(0, n, 1)`, and `x * range(n)`, `np.where(c, range(n), 0.0)` failed with internal
  errors, `logp[range(n), y]` with "a tuple cannot be used as a number". A range is now
  the array of its items wherever NumPy takes an array, and its items when unpacked;
- `Y[i + 1, :] = [a, b]` (a list stored into a row: ODE code) was refused;
- `np.cumsum(x, dtype=float)` (the moving-average recipe), `np.var`/`np.std` with `dtype=`,
  and `np.cov(x, y)` / `np.corrcoef(x, y)` of two arrays were refused (the last naming
  np.cov when np.corrcoef was called);
- refusals that said only "see the README": an import inside the function, np.append,
  np.insert, itertools.combinations, functools.reduce;
- `a.tolist()` was refused (1-D: the list of its elements; 2-D is refused at the call).

Each value against CPython/NumPy, each gradient against central differences and the
interpreter (check_against_python)."""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import pyad

from ..gradients import check_against_python

X = np.array([1.0, 10.0, 100.0, 1000.0])


# --------------------------------------------------------------------- ranges as values

def array_of_a_range(x):
    return np.sum(np.array(range(len(x))) * x)


def asarray_of_a_stepped_range(x):
    r = range(1, len(x), 2)
    return np.sum(x[r]) + np.sum(np.asarray(r) * 1.5)


def gather_rows_by_range(logp, y):
    return logp[range(len(y)), y].sum()


def index_by_a_reversed_range(x):
    return np.sum(x[range(len(x) - 1, -1, -1)] * np.arange(len(x)))


def unpack_a_range(x):
    a, b, c = range(3)
    return a * x[0] + b * x[1] + c * x[2]


def unpack_a_run_time_range(x):
    a, b, c, d = range(len(x))
    return a * x[0] + b * x[1] + c * x[2] + d * x[3]


def rows_of_ranges(x):
    return np.sum(np.array([range(2), range(2)]) @ x[:2])


def array_times_range(x):
    return np.sum(x * range(len(x))) + np.sum(x[:3] + range(3))


def range_in_numpy_functions(x):
    return np.sum(np.where(x > 5.0, range(len(x)), 0.0)) + np.sum(np.minimum(x, range(4))) \
        + np.dot(range(len(x)), x)


def store_a_range(x):
    y = np.zeros(len(x))
    y[:] = range(len(x))
    return np.sum(y * x)


def returns_a_range(x):
    return range(len(x))


RANGES = [(array_of_a_range, (X,)), (asarray_of_a_stepped_range, (X,)),
          (gather_rows_by_range, (np.arange(12.0).reshape(3, 4), np.array([0, 1, 3]))),
          (index_by_a_reversed_range, (X,)), (unpack_a_range, (X,)),
          (unpack_a_run_time_range, (X,)), (rows_of_ranges, (X,)), (array_times_range, (X,)),
          (range_in_numpy_functions, (X,)), (store_a_range, (X,))]


@pytest.mark.parametrize("fn, args", RANGES, ids=[c[0].__name__ for c in RANGES])
def test_a_range_is_the_array_of_its_items(fn, args):
    check_against_python(fn, *args)


def test_a_returned_range_comes_back_as_the_array_of_its_items():
    got = pyad.jit_grad(returns_a_range)(X)
    assert isinstance(got, np.ndarray) and np.array_equal(got, np.arange(4))


def returns_a_slice(x):
    return x[0], slice(1, 2)


def test_a_returned_slice_is_refused():
    with pytest.raises(pyad.PyadTypeError, match="cannot return a slice"):
        pyad.jit_grad(returns_a_slice)(X)


def range_as_a_number(x):
    return x[0] + range(3)


def test_a_range_used_as_a_number_is_named():
    with pytest.raises(pyad.PyadTypeError, match="a range cannot be used as a number"):
        pyad.jit_grad(range_as_a_number)(X)


# ------------------------------------------------------------------ lists stored into rows

def euler_rows(y0, h):
    Y = np.zeros((4, 2))
    Y[0] = y0
    for i in range(3):
        Y[i + 1, :] = [Y[i, 0] + h * Y[i, 1], Y[i, 1] - h * Y[i, 0]]
    return np.sum(Y ** 2)


def tuples_and_ints_into_rows(y0):
    Y = np.zeros((3, 2))
    Y[1] = (y0[0], 2.0)
    Y[2, :] = [1, y0[1]]
    Y[0, 1:] = [y0[0] * y0[1]]
    return np.sum(Y * Y)


def nested_list_into_a_matrix(a):
    M = np.zeros((2, 2))
    M[:, :] = [[a, 1.0], [2.0, a * a]]
    return np.sum(M * M)


def appended_list_into_an_array(x):
    squares = []
    for v in x:
        squares.append(v * v)
    y = np.zeros(len(x))
    y[:] = squares
    return np.sum(y * x)


LISTS = [(euler_rows, (np.array([1.0, 0.5]), 0.1)),
         (tuples_and_ints_into_rows, (np.array([1.5, -2.0]),)),
         (nested_list_into_a_matrix, (1.5,)), (appended_list_into_an_array, (X / 100.0,))]


@pytest.mark.parametrize("fn, args", LISTS, ids=[c[0].__name__ for c in LISTS])
def test_a_list_stored_into_a_view_is_an_array(fn, args):
    check_against_python(fn, *args)


def list_of_the_wrong_length(a):
    m = np.zeros(3)
    m[:] = [a, a]
    return np.sum(m)


def test_a_list_of_the_wrong_length_raises_like_numpy():
    with pytest.raises(ValueError, match="broadcast"):
        pyad.jit_grad(list_of_the_wrong_length)(1.0)


# ------------------------------------------------------------- dtype=, two-array np.cov

def moving_average(x):
    c = np.cumsum(x, dtype=float)
    return np.sum((c[3:] - c[:-3]) / 3) + np.sum(x.cumsum(dtype=np.float64) ** 2)


def cumsum_of_ints_as_floats(n, x):
    return np.sum(np.cumsum(np.arange(n), dtype=float) * x[0]) \
        + np.cumprod(np.arange(1, n), dtype=float)[-1]


def statistics_with_dtype(x):
    return np.var(x, dtype=float) + np.std(x, ddof=1, dtype=np.float64) \
        + np.mean(x, dtype=float)


def correlation(x, y):
    return np.corrcoef(x, y)[0, 1]


def covariance_of_two(X, y):
    return np.sum(np.cov(X, y, rowvar=False) ** 2) + np.sum(np.cov(y, y, ddof=0))


RNG = np.random.default_rng(3)
KEYWORDS = [(moving_average, (RNG.normal(size=7),)),
            (cumsum_of_ints_as_floats, (5, RNG.normal(size=3))),
            (statistics_with_dtype, (RNG.normal(size=6),)),
            (correlation, (RNG.normal(size=6), RNG.normal(size=6))),
            (covariance_of_two, (RNG.normal(size=(6, 2)), RNG.normal(size=6)))]


@pytest.mark.parametrize("fn, args", KEYWORDS, ids=[c[0].__name__ for c in KEYWORDS])
def test_dtype_keywords_and_two_array_covariance(fn, args):
    check_against_python(fn, *args)


# ----------------------------------------------------------------------- refusal hints

def import_inside(x):
    from math import sqrt
    return sqrt(x)


def appending_to_an_array(x):
    y = np.zeros(0)
    for v in x:
        y = np.append(y, v)
    return np.sum(y)


def inserting(x):
    return np.sum(np.insert(x, 0, 0.0))


def pairs_by_itertools(P):
    return sum(np.sum((P[i] - P[j]) ** 2) for i, j in itertools.combinations(range(len(P)), 2))


def product_by_reduce(x):
    return functools.reduce(lambda a, b: a * b, x)


@pytest.mark.parametrize("fn, hint", [
    (import_inside, "move the import to the top of the module"),
    (appending_to_an_array, "allocate once"),
    (inserting, "np.concatenate"),
    (pairs_by_itertools, "nested loops"),
    (product_by_reduce, "write the loop"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_the_refusal_says_what_to_write_instead(fn, hint):
    arg = np.ones((3, 2)) if fn is pairs_by_itertools else 2.0 if fn is import_inside \
        else np.ones(3)
    with pytest.raises(pyad.PyadSyntaxError) as info:
        pyad.jit_grad(fn)(arg)
    assert hint in str(info.value)
    assert f"{__file__.rsplit('/', 1)[-1]}:" in str(info.value)   # located in this file


# -------------------------------------------------------------------- a list of quantiles

def interquartile_range(x):
    lo, hi = np.percentile(x, [25, 75])
    return hi - lo + np.median(x)


def quantiles_of_columns(X):
    return np.sum(np.percentile(X, (10, 50), axis=0) ** 2) \
        + np.sum(np.quantile(X, [0.25, 0.75], axis=1, keepdims=True) * np.arange(3.0)[:, None])


@pytest.mark.parametrize("fn, args", [(interquartile_range, (RNG.normal(size=7),)),
                                      (quantiles_of_columns, (RNG.normal(size=(3, 5)),))],
                         ids=["interquartile_range", "quantiles_of_columns"])
def test_a_list_of_quantiles_gives_one_result_each(fn, args):
    check_against_python(fn, *args)


def random_inside(x):
    rng = np.random.default_rng(0)
    return np.sum(x * rng.normal(size=x.shape))


def test_random_numbers_inside_are_refused_with_what_to_write():
    with pytest.raises(pyad.PyadSyntaxError, match="pass them in as an argument"):
        pyad.jit_grad(random_inside)(X)


# -------------------------------------------------------------------- a.tolist()

def sum_of_squares_of_a_list(x):
    s = 0.0
    for v in x.tolist():
        s += v * v
    scaled = (x * 2.0).tolist()
    return s + scaled[0] * len(scaled) + sum(scaled)


def test_tolist_of_a_vector_is_the_list_of_its_elements():
    check_against_python(sum_of_squares_of_a_list, np.array([1.0, -2.0, 3.0, 0.5]))


def test_tolist_of_a_matrix_is_refused_at_the_call():
    def first(A):
        return A.tolist()[0][0]
    with pytest.raises(pyad.PyadTypeError, match="tolist.*2-D") as info:
        pyad.jit_grad(first)(np.eye(2))
    assert "A.tolist()" in str(info.value)
