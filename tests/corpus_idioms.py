"""Python as people write it (issue 16, items 1-3): lists, iteration, functions as values.
Each function runs in CPython as it is (the oracle), and pyad must agree on its value and
on its gradient (tests/frontend/test_python_idioms.py)."""
import functools
import math

import numpy as np


# ----------------------------------------------------------------------------- lists

def append_in_loop(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * x[i])
    return sum(out)


def append_in_while(x, n):
    acc = [x]
    while len(acc) < n:
        acc.append(acc[-1] * 0.5 + 1.0)
    return acc[-1] + acc[0] * len(acc)


def append_when(x):
    kept = []
    for v in x:
        if v > 0.35:
            kept.append(math.exp(-v))
    return sum(kept) / max(len(kept), 1)


def branches_of_different_lengths(x, flag):
    items = [x, 2.0 * x]
    if flag:
        items.append(x * x)
    total = 0.0
    for v in items:
        total += v
    return total * len(items)


def list_of_arrays(x):
    parts = [x, x * 2.0, np.sin(x)]
    s = 0.0
    for p in parts:
        s += np.sum(p * p)
    return s + np.sum(np.stack(parts)[1])


def fixed_list_ops(a, b):
    xs = [a, b, a * b]
    xs[1] = xs[1] + 1.0
    xs[2] += a
    last = xs.pop()
    first = xs.pop(0)
    xs.extend([first, last])
    return xs[0] * xs[-1] + len(xs) + xs.index(first) + xs.count(last)


def run_time_list_ops(x):
    xs = [0.0]
    for v in x:
        xs.append(v * 3.0)
    xs[2] = xs[2] * xs[1]
    xs[-1] += 1.0
    top = xs.pop()
    ys = xs.copy()
    ys.extend(x)
    return top + sum(ys) + ys.index(xs[1]) + len(ys)


def nested_comprehension(x):
    pairs = [x[i] * x[j] for i in range(x.shape[0]) for j in range(i) if i + j > 1]
    return sum(pairs) + len(pairs)


def comprehension_to_array(x):
    sq = np.array([v * v for v in x])
    return np.sum(sq * x) + np.array(list(x))[0]


def list_argument_to_numpy(x):
    ws = [0.5, 1.5, -2.0]
    return np.dot(np.array(ws), x[:3]) + np.sum(np.array([x[0], x[1]]))


def returns_a_list(x):
    return [x, x * x, math.sin(x)]


def returns_a_grown_list(x, n):
    out = []
    for k in range(n):
        out.append(x ** k)
    return out


# ----------------------------------------------------------------------------- folds

def folds(x):
    return (sum(x) + sum([v for v in x], 1.5) + min(x) + max(v * v for v in x)
            + math.fsum(x) + any(v > 0.85 for v in x) + all([v > 0.0 for v in x]))


def min_max_of_lists(a, b):
    xs = [a, b, a - b]
    return min(xs) * max(xs) + min([a * 2.0, b]) + max((a, b, 0.5))


def sum_of_generator_of_products(x, y):
    return sum(a * b for a, b in zip(x, y))


# ----------------------------------------------------------------------------- iteration

def over_array(x):
    s = 0.0
    for v in x:
        s = s * 0.5 + v
    return s


def over_rows(m):
    total = 0.0
    for row in m:
        total += np.sum(row * row) * row[0]
    return total


def enumerate_start(x):
    s = 0.0
    for i, v in enumerate(x, start=1):
        s += i * v
    for i, v in enumerate(x, 2):
        s += v / i
    return s


def zip_three(x, y, z):
    s = 0.0
    for a, b, c in zip(x, y, z):
        s += a * b - c
    return s


def zip_shortest(x, y):
    s = 0.0
    for a, b in zip(x, y[1:]):
        s += a * b
    return s


def reversed_things(x):
    s = 0.0
    for v in reversed(x):
        s = s * 0.5 + v
    for i in reversed(range(1, 4)):
        s += i * x[i]
    return s


def enumerate_zip_nested(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s += (i + 1) * a * b
    return s


def range_objects(x, n):
    r = range(1, n, 2)
    s = 0.0
    for i in r:
        s += x[i]
    return s + len(r) + r[-1] + len(range(n, 0, -3))


def over_tuple_of_arrays(w1, w2, x):
    h = x
    for w in (w1, w2):
        h = np.tanh(w @ h)
    return np.sum(h)


def over_tuple_with_break(a, b):
    s = 0.0
    for v in (a, b, a * b, 5.0):
        if s > 3.0:
            break
        s += v
    return s


def over_list_of_pairs(a, b):
    layers = [(a, 1.0), (b, 2.0), (a * b, 3.0)]
    s = 0.0
    for w, k in layers:
        s = s * w + k
    return s


def loop_with_early_return(x):
    for i, v in enumerate(x):
        if v > 0.55:
            return v * i
    return -1.0


# ----------------------------------------------------------------------------- functions

def integrate(f, y, h, steps):
    for _ in range(steps):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def lambda_to_helper(y0, rate):
    return integrate(lambda y: -rate * y, y0, 0.1, 10)


def nested_def_closure_over_array(y0, a):
    def f(y):
        return a @ y - 0.1 * y * y
    return np.sum(integrate(f, y0, 0.05, 5))


def nested_def_with_default(x):
    def g(v, p=2.0, *, q=1.0):
        return v ** p + q
    return g(x) + g(x, 3.0) + g(x, q=0.5) + g(p=1.0, v=x)


def late_binding(x):
    scale = 1.0
    f = lambda v: v * scale  # noqa: E731
    a = f(x)
    scale = 3.0
    return a + f(x)


def module_function_as_value(x):
    return integrate(decay, x, 0.2, 3) + apply_twice(math.sin, x) + apply_twice(np.tanh, x)


def decay(y):
    return -0.5 * y


def apply_twice(f, x):
    return f(f(x))


def partials(x):
    p = functools.partial(power_sum, p=3.0)
    q = functools.partial(lambda a, b: a * b, 2.0)
    return p(x) + q(x) + CUBE(x)


def power_sum(x, p):
    return x ** p + x


CUBE = functools.partial(power_sum, p=3.0)


def make_scaler(k):
    return lambda v: k * v


def returned_closure(x):
    f = make_scaler(x)
    return f(2.0) + f(x)


def functions_in_a_tuple(x):
    s = 0.0
    for f in (math.sin, math.cos, lambda v: v * v):
        s += f(x)
    return s


def immediately_called(x):
    return (lambda v: v + 1.0)(x) * x


def sorted_key_free_mapping(x):
    ys = list(map_list(lambda v: v * 2.0, x))
    return sum(ys)


def map_list(f, xs):
    return [f(v) for v in xs]


ARR = np.linspace(0.1, 0.9, 5)
ARR2 = np.linspace(-0.5, 0.7, 5)
ARR3 = np.linspace(1.0, 2.0, 5)
MAT = np.arange(12.0).reshape(4, 3) / 10.0
W1 = np.array([[0.3, -0.2], [0.1, 0.4]])
W2 = np.array([[0.5, 0.2], [-0.3, 0.1]])

#: (function, arguments) of every case
CASES = [
    (append_in_loop, (ARR,)), (append_in_while, (1.5, 5)), (append_in_while, (1.5, 0)),
    (append_when, (ARR,)), (branches_of_different_lengths, (0.7, True)),
    (branches_of_different_lengths, (0.7, False)), (list_of_arrays, (ARR,)),
    (fixed_list_ops, (1.5, -0.5)), (run_time_list_ops, (ARR,)), (nested_comprehension, (ARR,)),
    (comprehension_to_array, (ARR,)), (list_argument_to_numpy, (ARR,)),
    (folds, (ARR,)), (min_max_of_lists, (0.3, -1.2)), (sum_of_generator_of_products, (ARR, ARR2)),
    (over_array, (ARR,)), (over_rows, (MAT,)), (enumerate_start, (ARR,)),
    (zip_three, (ARR, ARR2, ARR3)), (zip_shortest, (ARR, ARR2)), (reversed_things, (ARR,)),
    (enumerate_zip_nested, (ARR, ARR2)), (range_objects, (ARR, 5)),
    (over_tuple_of_arrays, (W1, W2, ARR[:2])), (over_tuple_with_break, (1.5, 2.5)),
    (over_tuple_with_break, (0.5, 0.25)), (over_list_of_pairs, (0.5, 1.5)),
    (loop_with_early_return, (ARR,)), (loop_with_early_return, (ARR * 0.1,)),
    (lambda_to_helper, (2.0, 0.3)), (nested_def_closure_over_array, (ARR[:2], W1)),
    (nested_def_with_default, (1.3,)), (late_binding, (1.3,)),
    (module_function_as_value, (0.8,)), (partials, (1.2,)), (returned_closure, (1.2,)),
    (functions_in_a_tuple, (0.6,)), (immediately_called, (0.6,)),
    (sorted_key_free_mapping, (ARR,)),
]


# ----------------------------------------------------------------------------- lists of arrays

def trajectory(x0, n):
    states = []
    x = x0.copy()
    for _ in range(n):
        x = x + 0.1 * np.sin(x)
        states.append(x)
    traj = np.array(states)
    return np.sum(traj * traj) + np.sum(np.stack(states)[-1]) + len(states)


def rows_collected_conditionally(m):
    kept = [m[0]]
    for row in m:
        if row[1] > 0.45:
            kept.append(row * 2.0)
    total = 0.0
    for r in kept:
        total += np.sum(r) * r[0]
    last = kept.pop()
    return total + np.sum(last) + np.sum(kept[-1]) + len(kept)


CASES += [(trajectory, (ARR, 4)), (trajectory, (ARR, 1)), (rows_collected_conditionally, (MAT,))]


def lambda_array_expression(y0, a):
    return np.sum(integrate(lambda y: a @ y - 0.1 * y, y0, 0.1, 4))


CASES += [(lambda_array_expression, (ARR[:2], W1))]


# ----------------------------------------------------------------------------- map, and
# compiler temporaries made while another is bound (a comprehension over a comprehension
# once shared its list with the inner one: every item counted twice)

def comprehension_over_comprehension(x):
    kept = [v * 2.0 for v in [math.sin(t) for t in x] if v > -2.0]
    return sum(kept) + len(kept)


def list_of_a_comprehension(x):
    return np.sum(np.array(list([math.sin(v) for v in x]))) + sum(list(v for v in x))


def sum_of_mapped(x, y):
    def sq(t):
        return t * t
    return sum(map(lambda t: t * t, x)) + sum(map(sq, y)) + max(map(abs, y))


def mapped_pairs_in_a_loop(x, y):
    c = 0.0
    for v in map(lambda p, q: p * q + 1.0, x, y):
        c += v * v
    return c + np.sum(np.array(list(map(math.cos, x))))


def mapped_over_mapped(x):
    return sum(map(math.exp, map(lambda t: -t * t, x)))


def closure_calls_nested(x):
    f = lambda a, b=1.0: a * b + 1.0   # noqa: E731
    g = lambda a: f(a, b=2.0) * f(a)   # noqa: E731
    return f(g(x[0]), b=g(x[1])) + g(f(x[2]))


CASES += [(comprehension_over_comprehension, (ARR,)), (list_of_a_comprehension, (ARR,)),
          (sum_of_mapped, (ARR, ARR[::-1].copy())), (mapped_pairs_in_a_loop, (ARR, ARR * 0.5)),
          (mapped_over_mapped, (ARR,)), (closure_calls_nested, (ARR,))]


def shifted_sum_of_arrays(x, w):
    k = len(w)   # a sum of arrays over a sequence of run-time length
    out = sum(w[j] * x[j:len(x) - k + 1 + j] for j in range(k))
    return np.sum(out ** 2)


def sum_of_rows_with_start(m, n):
    rows = [m[i % 2] * (i + 1.0) for i in range(n)]
    return np.sum(sum(rows, m[1]) ** 2) + np.sum(sum(r * r for r in rows))


CASES += [(shifted_sum_of_arrays, (ARR, ARR[:3].copy())), (sum_of_rows_with_start, (MAT, 3))]


# ----------------------------------------------------------------------------- lists of new
# lists: each new list is held as an array row

def matrix_of_comprehensions(x):
    m = [[x[i] * x[j] for j in range(3)] for i in range(3)]
    return sum(m[i][i] for i in range(3)) + m[0][2] + len(m[1])


def kernel_matrix(x, n):
    K = np.array([[math.exp(-(x[i] - x[j]) ** 2) for j in range(n)] for i in range(n)])
    return np.sum(K @ x[:n])


def rows_of_displays(x):
    rows = [[v, v * v, 1.0] for v in x]
    t = 0.0
    for r in rows:
        for v in r:
            t += v * len(r)
    rows.append([1.0, 2.0, 3.0])
    return t + np.sum(np.array(rows)[:, 1]) + rows[-1][2]


CASES += [(matrix_of_comprehensions, (ARR,)), (kernel_matrix, (ARR, 4)),
          (rows_of_displays, (ARR,))]


# ----------------------------------------------------------------------------- more of
# Python: :=, starred unpacking, loop else, sorted/round/divmod

def walrus_filters(x):
    total = 0.0
    for v in x:
        if (w := v * v) > 0.05:
            total += w
    return total + sum(y for t in x if (y := t * 2.0) > 0.5)


def starred_unpacking(x):
    first, *rest = x
    a, *mid, z = (x[0], x[1], x[2], x[3])
    *init, last = [x[0], 2.0, x[2]]
    *none, only = (x[4],)
    return first * np.sum(rest) + a * sum(mid) * z + sum(init) * last + len(mid) + \
        only * len(none)


def search_with_else(x, t):
    s = 0.0
    for i in range(len(x)):
        if x[i] > t:
            s = x[i] * i
            break
    else:
        s = -1.0 * x[0]
    k = 0
    while k < 3:
        k += 1
        s += x[k]
    else:
        s *= 2.0
    for v in x:
        if v > t + 1.0:
            return s * v
    else:
        return s + 0.5


def else_continues_the_outer_loop(x):
    total = 0.0
    for i in range(3):
        for v in x:
            if v * i > 0.5:
                break
        else:
            total += 100.0
            continue
        total += x[i]
    return total


def sorted_round_divmod(x, n):
    s = sorted(x)
    r = sorted([x[0], 2.0, x[2]], reverse=True)
    q, m = divmod(x[1] * 3.0, 0.07)
    k, j = divmod(n, 3)
    return s[0] * 2 + s[-1] + r[0] * r[2] + q * x[0] + m + round(x[3] * 40) * x[1] + k + \
        j * 2 + round(n) + round(2.5) + round(-0.5) + round(0.49999999999999994)


CASES += [(walrus_filters, (ARR,)), (starred_unpacking, (ARR,)),
          (search_with_else, (ARR, 0.4)), (search_with_else, (ARR, 5.0)),
          (search_with_else, (ARR, -1.0)), (else_continues_the_outer_loop, (ARR,)),
          (sorted_round_divmod, (ARR2, 7))]
