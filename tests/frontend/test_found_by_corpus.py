"""What the domain corpus (tests/corpus_domains*.py) and its probes found, one test each:
idioms that were refused or crashed, a store whose index was evaluated twice, and NumPy's
rules for np.clip; plus the helper and container forms that came with them (helpers
returning None, None and array defaults, tuple concatenation)."""
import inspect
import math

import numpy as np
import pytest

import pyad
from ..gradients import check_against_python
from ..modules import load_module

X = np.array([0.5, 1.5, -2.0])
ORIGIN = np.zeros(2)
NET = {"W": np.array([[1.0, 0.5], [-0.3, 2.0]]), "b": np.array([0.1, -0.2]), "scale": 2.0}
PAIR = (np.array([1.0, 2.0]), np.array([0.5, -1.0]))


def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, s in enumerate(lines) if text in s)


# ----------------------------------------------------------------------- array unpacking

def beale(xy):
    x, y = xy
    return (1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2


def unpack_rows(P):
    a, b = P
    return np.sum(a * b)


def test_an_array_unpacks_into_names():
    check_against_python(beale, np.array([1.2, 0.4]))
    check_against_python(unpack_rows, np.arange(1.0, 5.0).reshape(2, 2))
    f = pyad.jit_grad(beale)
    line = _line_of(beale, "x, y = xy")
    with pytest.raises(ValueError, match=rf"not enough values to unpack \(expected 2\) "
                       rf"\(line {line} of "):
        f(np.array([1.0]))
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 2\)"):
        f(np.array([1.0, 2.0, 3.0]))


# ----------------------------------------------------------------------- globals

def global_array_method(x):
    p = ORIGIN.copy()
    p += x
    return p.sum() + NET["W"].sum(axis=0) @ x + NET["W"].T.dot(x).max()


def global_containers_of_arrays(x):
    a, b = PAIR
    h = np.tanh(NET["W"] @ x + NET["b"])
    return NET["scale"] * np.sum(h ** 2) + a @ x + np.sum(b * x)


def fill_global(x):
    ORIGIN.fill(x[0])
    return x[0]


def test_methods_and_containers_of_global_arrays():
    check_against_python(global_array_method, X[:2])
    check_against_python(global_containers_of_arrays, X[:2])
    with pytest.raises(pyad.PyadError, match="cannot assign into the global array `ORIGIN`"):
        pyad.jit_grad(fill_global)(X)


# ----------------------------------------------------------------------- masks, math

def mask_operators(x):
    inside = (x > -0.5) & (x < 0.5)
    outside = (x < -1.0) | (x > 1.0)
    odd = (x > 0) ^ (x > 0.3)
    return (np.sum(x[inside] ** 2) + np.sum(np.where(outside, x, 0.0)) + np.sum(x[~inside])
            + np.sum(np.where(odd, x, 1.0)) + ((x[0] > 0) & (x[1] > 0)) * x[2])


def degrees_radians(lat, lon):
    return math.sin(math.radians(lat)) * math.cos(math.radians(lon)) + math.degrees(lat * lon)


def test_bool_operators_on_masks_and_math_degrees():
    check_against_python(mask_operators, np.array([0.2, -0.7, 1.3, 0.45, -1.2, 0.1]))
    check_against_python(degrees_radians, 40.7, -74.0)


# ----------------------------------------------------------------------- stores, .item()

def store_index_once(x):
    a = np.zeros((3, 2))
    order = [0, 1, 2]
    a[order.pop(), :] = x
    a[order.pop(), 1:] += x[0]
    a[order.pop()] = x * 3.0
    return np.sum(a * np.arange(6.0).reshape(3, 2)) + len(order)


def item_of_numbers(x):
    return np.sum(x).item() * 2.0 + x[0].item() + (x[1] * 3).item() + x[1:2].item()


def test_a_store_evaluates_its_index_once_and_item_of_a_number():
    check_against_python(store_index_once, X[:2])
    check_against_python(item_of_numbers, X)


# ----------------------------------------------------------------------- np.clip as NumPy

CLIP_CALLS = ["np.clip(x, -1, max=0.3)", "np.clip(x, min=-1, max=0.3)", "np.clip(x, max=0.3)",
              "np.clip(x, -1)", "np.clip(x, a_min=-1, max=0.3)", "np.clip(x, -1, a_max=0.3)",
              "np.clip(x, None, 0.3)", "np.clip(x, a_max=0.3)", "np.clip(x)",
              "np.clip(x, -1, 0.3, min=0)", "x.clip(-1, max=0.3)", "x.clip(max=0.3)",
              "x.clip(-1)", "x.clip(min=-1)", "x.clip()", "np.clip(x, min=-1, a_max=0.3)",
              "np.clip(x, None, None)", "np.clip(x[0], -1, 0.3)", "x.clip(a_min=-1)"]


@pytest.mark.parametrize("call", CLIP_CALLS)
def test_clip_accepts_what_numpy_accepts(tmp_path, call):
    src = f"import numpy as np\n\n\ndef f(x):\n    return np.sum({call} * x)\n"
    f = load_module(tmp_path / "clip_call.py", src).f
    try:
        want = f(X.copy())
    except (TypeError, ValueError):
        with pytest.raises(pyad.PyadError) as info:
            pyad.jit_grad(f)(X)
        assert info.value.line == 5
        return
    assert pyad.jit_grad(f)(X) == pytest.approx(want, rel=1e-15)


# ----------------------------------------------------------------------- tuples and lists

def tuple_arithmetic(x, A):
    t = (x, 2.0 * x) + (x * x,)
    u = t[2:] * 2
    s = A.shape + (1,)
    xs = 2 * [x, 1.0] + [x]
    return (t[0] + t[1] * t[2] + len(t) + u[1] + len(u + t) + np.sum(np.zeros(s[:2]) + A)
            + sum(xs) * len(xs))


def test_tuples_and_lists_concatenate_and_repeat():
    check_against_python(tuple_arithmetic, 0.7, np.ones((2, 3)))


# ----------------------------------------------------------------------- helpers and None

def fill_in_place(out, x):
    for i in range(out.shape[0]):
        out[i] = x[i] * 2.0


def fill_then_return(out, x, flag):
    if flag:
        out[0] = x[0]
        return
    out[1:] = x[1:] ** 2


def calls_helpers_returning_none(x):
    buf = np.zeros_like(x)
    fill_in_place(buf, x)
    fill_then_return(buf, x, True)
    r = fill_then_return(buf, x, x[0] > 0)   # a run-time branch: None on both paths
    return np.sum(buf * x) + (1.0 if r is None else 0.0)


def uses_none_as_number(x):
    buf = np.zeros_like(x)
    return fill_in_place(buf, x) + 1.0


def weighted(x, w=None, scale=None, offset=np.array([1.0, 2.0, 3.0])):
    if scale is not None:
        x = x * scale
    if w is None:
        return np.sum(x + offset)
    return np.sum(x * w)


def calls_with_none_defaults(x):
    return weighted(x) + weighted(x, x) + weighted(x, w=None, scale=2.0) + \
        weighted(x, None, x[0])


def list_default(x, c=[1.0]):
    return x


def uses_list_default(x):
    return list_default(x)


def dict_or_list_by_early_return(x):
    if x > 0:
        return {"a": x, "b": 2.0 * x}
    for k in range(3):
        if -x * k > 1.0:
            return {"a": x * k, "b": 1.0}
    return {"a": -x, "b": x * x}


def list_by_early_return(x):
    for k in range(3):
        if x * k > 1.0:
            return [x, x * k]
    return [x, 0.5]


def calls_early_containers(x):
    d = dict_or_list_by_early_return(x)
    a, b = list_by_early_return(x)
    return d["a"] * d["b"] + a * b


def test_helpers_returning_none_and_none_defaults():
    for v in (X, -X):
        check_against_python(calls_helpers_returning_none, v)
    check_against_python(calls_with_none_defaults, X)
    with pytest.raises(pyad.PyadError, match="None cannot be used as a number") as info:
        pyad.jit_grad(uses_none_as_number)(X)
    assert info.value.line == _line_of(uses_none_as_number, "return fill_in_place")
    with pytest.raises(pyad.PyadError, match="does not return a value on every path"):
        pyad.jit_grad(fill_in_place)(X.copy(), X)   # the compiled function itself must
    with pytest.raises(pyad.PyadError, match="default value of parameter `c`"):
        pyad.jit_grad(uses_list_default)(1.5)


def test_containers_returned_early_from_helpers():
    for v in (0.7, -0.2, -0.9, 0.3):
        check_against_python(calls_early_containers, v)
