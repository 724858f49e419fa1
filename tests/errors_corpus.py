"""Functions pyad must refuse, each with a located error (golden files in golden/errors/).
Line numbers matter: append new cases at the end."""
import math

LIMIT = 3


def list_comp(x):
    return sum({x * i for i in range(3)})


def for_loop(x):
    for v in x:
        x = x * v
    return x


def lambda_expr(x):
    g = lambda *y: y[0] * 2  # noqa: E731
    return g(x)


def unknown_call(x):
    hash(x)
    return x


def undefined_name(x):
    return x * not_defined_anywhere  # noqa: F821


def string_constant(x):
    return x + "a"


def keyword_call(x):
    return math.log(x, base=2.0)


def return_in_branch(x):
    if x > 0:
        return x
    x = -x


def maybe_unbound(x):
    if x > 0:
        y = x
    return y * 2.0


def matmul_operator(x):
    return x @ x


def is_comparison(x):
    return 1.0 if x is x else x


def tuple_as_number(x):
    t = (x, x)
    return t * 2.0


def unpack_mismatch(x):
    a, b, c = x, x
    return a


def wrong_arity(x):
    return math.exp(x, 2.0)


def attribute_of_local(x):
    return x.real


def no_return(x):
    x = x + 1.0


def key_loop_breaks(x):
    for k in _P:
        x = x + _P[k]
        if x > 2.0:
            break
    return x


def float_range(x):
    for i in range(x):
        x = x * 2.0
    return x


def undefined_after_loop(x):
    for i in range(1, 3, -1):
        y = x * i
    return y


def print_call(x):
    print("x =", x)
    return x


def try_except(x):
    try:
        return 1.0 / x
    except ZeroDivisionError:
        return 0.0


def match_statement(x):
    match x:
        case 0.0:
            return 1.0
        case _:
            return x


def with_statement(x):
    with open("data.txt") as fh:
        return x * len(fh.read())


def raise_on_a_path(x):
    if x >= 0.0:
        return math.sqrt(x)
    else:
        raise _NegativeInput("x must not be negative")


import numpy as np  # noqa: E402  (here, below the older cases: their line numbers stay)


def _writes_argument(a, k):
    if k == 0:
        return 0.0
    a[0] = 1.0
    return _writes_argument(a, k - 1)


def recursion_writes_argument(x):
    return _writes_argument(np.full(3, x), 2)


def _returns_view(a, k):
    if k == 0:
        return a[1:]
    return _returns_view(a, k - 1) * 2.0


def recursion_returns_view(x):
    return np.sum(_returns_view(np.full(3, x), 2))


def _takes_tuple(p, k):
    if k == 0:
        return p[0]
    return _takes_tuple(p, k - 1)


def recursion_tuple_argument(x):
    return _takes_tuple((x, x), 2)


def _appends(xs, v):
    xs.append(v)
    return v


def list_mutated_elsewhere(x):
    xs = [x]
    _appends(xs, x)
    return sum(xs)


def list_changed_while_iterated(x):
    xs = [x, 2.0 * x]
    for v in xs:
        xs.append(v)
    return sum(xs)


def run_time_list_of_mixed_items(x):
    xs = []
    for k in range(3):
        xs.append(x * k)
    xs.append(np.ones(2))
    return len(xs)


def max_over_arrays_of_run_time_length(x):
    return max([np.ones(2) * x for _ in range(3)])


def function_chosen_by_branch(x):
    g = math.sin
    if x > 0:
        g = math.cos
    return g(x)


def nested_def_calls_itself(x):
    def g(v):
        return v if v < 1.0 else g(v * 0.5)
    return g(x)


def nonlocal_in_closure(x):
    s = x

    def bump():
        nonlocal s
        s = s + 1.0
        return s
    return bump()


def float_not_iterable(x):
    return sum(v for v in x)


def list_slice_at_run_time(x):
    xs = [x, x, x]
    return sum(xs[1:int(x)])


def truth_of_an_array(x):
    return 1.0 if np.ones(2) * x else 0.0


class _NegativeInput(ValueError):
    """A user's exception class: compiled code raises only builtin classes."""


_P = {"a": 1.0, "b": 2.0}   # a global dict whose keys key_loop_breaks loops over


def sort_a_list_in_place(x):
    xs = [x, 2.0 * x, -x]
    xs.sort()
    return xs[0]
