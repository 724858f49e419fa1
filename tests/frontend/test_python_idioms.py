"""Lists, iteration and functions as values (issue 16, items 1-3): every function of
tests/corpus_idioms.py agrees with CPython on its value, and its gradient passes finite
differences, the dot-product test and the IR interpreter (tests/gradients.py)."""
import math
import re

import numpy as np
import pytest

import pyad
from .. import corpus_idioms as C
from ..gradients import check_against_python
from ..modules import load_module


@pytest.mark.parametrize("fn,args", C.CASES,
                         ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(C.CASES)])
def test_agrees_with_python(fn, args):
    check_against_python(fn, *args)


def test_list_results_come_back_as_lists_and_arrays():
    f = pyad.jit_grad(C.returns_a_list)
    got = f(0.7)
    assert isinstance(got, list) and got == pytest.approx(C.returns_a_list(0.7), rel=1e-15)
    g = pyad.jit_grad(C.returns_a_grown_list)
    got = g(1.5, 4)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, C.returns_a_grown_list(1.5, 4), rtol=1e-15)
    assert g(1.5, 0).shape == (0,)
    # the gradient of a component of a run-time-length list result, through the pullback
    y, back = g.pullback(1.5, 4)
    ct = np.zeros_like(y)
    ct[3] = 1.0
    assert back(ct) == pytest.approx(3 * 1.5 ** 2, rel=1e-14)   # argument 0, bare (JAX)


def test_a_list_that_grows_past_its_first_capacity():
    x = np.linspace(-1.0, 1.0, 101)   # 102 items: several doublings of the buffer
    f = check_against_python(C.run_time_list_ops, x)
    assert f(x) == pytest.approx(C.run_time_list_ops(x), rel=1e-12)


def test_run_time_errors_of_lists_name_the_line(tmp_path):
    src = ("def f(x, n):\n"
           "    xs = []\n"
           "    for k in range(n):\n"
           "        xs.append(x * k)\n"
           "    return xs[3] + min(xs) + xs.pop()\n")
    f = pyad.jit_grad(load_module(tmp_path / "runtime_list.py", "import math\n" + src).f)
    assert f(1.0, 5) == pytest.approx(3.0 + 0.0 + 4.0)
    with pytest.raises(IndexError, match=r"index 3 is out of bounds .* size 2 \(line 6 of "):
        f(1.0, 2)
    with pytest.raises(ValueError, match="empty sequence"):
        pyad.jit_grad(load_module(tmp_path / "empty_min.py", (
            "def f(x, n):\n    return min([x * k for k in range(n)])\n")).f)(1.0, 0)


REFUSED = [
    ("x", "[v for v in x]", (1.5,), "'float' object is not iterable"),
    ("x", "min([np.ones(2) * x for k in range(int(x))])", (2.0,), "min\\(\\) over arrays"),
    ("x", "[[x, 2 * x] for k in range(3)][0].append(x)", (2.0,), "an array has no method "
     "`append`"),
    ("x", "sorted([x, 1.0], key=abs)", (2.0,), "sorted\\(\\) takes a sequence and reverse="),
    ("x", "round(x, 2)", (2.0,), "round\\(\\) takes one number here"),
    ("x", "divmod(x)", (2.0,), "divmod\\(\\) takes two numbers"),
    ("x", "[np.ones(2) * k for k in range(int(x))].index(x)", (1.0,),
     "list.index\\(\\) of a list of arrays"),
    ("x", "[x, np.ones(2)][int(x)]", (1.0,), "must hold numbers, or arrays of one shape"),
    ("x", "1.0 if np.ones(2) * x else 0.0", (1.0,), "truth value of an array"),
    ("x", "(lambda *a: a[0])(x)", (1.5,), "lambda with \\*args"),
    ("x", "{v for v in range(3)}", (1.5,), "set comprehension"),
    ("x", "[x, x][1:int(x)]", (1.5,), "slicing a list needs integer-literal bounds"),
    ("x", "x(2.0)", (1.5,), "`x` is not a function"),
    ("x", "math.sin + x", (1.5,), "a function cannot be used as a number"),
    # found by the domain corpus (tests/frontend/test_found_by_corpus.py)
    ("x, n", "x * (n ^ 3)", (1.5, 2), "unsupported operator `\\^` on an int"),
    ("x, n", "x * (~n)", (1.5, 2), "unsupported operator `~` on a number"),
    ("x", "np.sum((x > 0) & x)", (np.ones(3),), "unsupported operator `&` on a float array"),
    ("x, n", "len((x,) * n)", (1.5, 2), "needs an int n known when compiling"),
    ("x, n", "sum([x * k for k in range(n)] * 2)", (1.5, 2), "`\\*` of a list whose length"),
    ("x", "len((x,) + [x])", (1.5,), "can only concatenate a tuple to a tuple"),
    ("x", "sum([lambda t, k=k: t * k for k in range(3)][0](x) for _ in range(1))", (1.5,),
     "a list of functions needs a length known when compiling"),
]


@pytest.mark.parametrize("params,expr,args,message", REFUSED,
                         ids=[r[3][:30] for r in REFUSED])
def test_refusals_are_located(tmp_path, params, expr, args, message):
    src = f"import math\nimport numpy as np\n\n\ndef f({params}):\n    return {expr}\n"
    f = load_module(tmp_path / "refused.py", src).f
    with pytest.raises(pyad.PyadError, match=message) as info:
        pyad.jit_grad(f)(*args)
    assert info.value.line == 6, info.value


def test_sum_of_no_arrays_raises_value_error(tmp_path):
    src = "import numpy as np\n\n\ndef f(x):\n    return sum([np.ones(2) * x for k in range(int(x))])\n"
    f = pyad.jit_grad(load_module(tmp_path / "empty.py", src).f)
    np.testing.assert_array_equal(f(2.0), [4.0, 4.0])
    with pytest.raises(ValueError, match=r"sum\(\) of an empty sequence of arrays .*\(line 5 of "
                       r"empty.py\)"):
        f(0.5)


PROGRAMS_REFUSED = [   # (source, message, line of the error)
    ("def add(xs, v):\n"
     "    xs.append(v)\n"
     "    return v\n\n\n"
     "def f(x):\n"
     "    xs = [x]\n"
     "    add(xs, x)\n"
     "    return sum(xs)\n", "cannot be mutated here", 2),
    ("import math\n\n\n"
     "def f(x):\n"
     "    g = math.sin\n"
     "    if x > 0:\n"
     "        g = math.cos\n"
     "    return g(x)\n", "different functions", 6),
    ("def f(x):\n"
     "    def g(v):\n"
     "        return v if v < 1.0 else g(v * 0.5)\n"
     "    return g(x)\n", "the nested function `g` calls itself", 3),
    ("def f(x):\n"
     "    xs = [x, 2.0 * x]\n"
     "    for v in xs:\n"
     "        xs.append(v)\n"
     "    return sum(xs)\n", "`xs` is changed inside a loop over it", 3),
]


@pytest.mark.parametrize("src,message,line", PROGRAMS_REFUSED,
                         ids=[p[1][:24] for p in PROGRAMS_REFUSED])
def test_programs_refused_where_the_construct_is(tmp_path, src, message, line):
    f = load_module(tmp_path / "refused_program.py", src).f
    with pytest.raises(pyad.PyadError, match=message) as info:
        pyad.jit_grad(f)(3.0)
    assert info.value.line == line


def test_fsum_compensates():
    x = np.array([1e16, 1.0, -1e16, 3.0, 1e-3] * 3)
    f = pyad.jit_grad(_fsum_only)
    assert f(x) == pytest.approx(math.fsum(x), rel=1e-15)
    assert sum(x) != pytest.approx(math.fsum(x), rel=1e-3)   # the plain sum loses it
    check_against_python(_fsum_only, C.ARR)


def _fsum_only(x):
    return math.fsum(x)


def _fsum_doubled(x):
    return math.fsum(v * 2.0 for v in x)


@pytest.mark.parametrize("terms", [
    [np.inf, 1.0, 2.0], [-np.inf, -np.inf], [np.nan, 1.0], [np.inf, np.nan],
    [np.inf, -np.inf],                         # ValueError: -inf + inf in fsum
    [1e308, 1e308, -1e308],                    # OverflowError: intermediate overflow
    [1e308, 1e308, np.inf],                    # the overflow comes first
    [1e308, -1e308, 1e308], [1e100, 1.0, -1e100], []])
@pytest.mark.parametrize("fn", [_fsum_only, _fsum_doubled], ids=lambda fn: fn.__name__)
def test_fsum_of_infinities_nans_and_overflows_is_cpythons(fn, terms):
    """Infinite and nan terms are added apart, as CPython does: their sum is the result (a
    compensated sum of them gave nan), inf + -inf raises ValueError, and a running sum that
    overflows raises OverflowError."""
    x = np.array(terms, dtype=float)
    f = pyad.jit_grad(fn)
    try:
        with np.errstate(over="ignore"):
            want = fn(x)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e), match=re.escape(str(e))):
            f(x)
        return
    np.testing.assert_equal(f(x), want)


def products(x):
    """math.prod over an array, a generator and a list, with and without start=."""
    return math.prod(x) + math.prod((v + 1.0 for v in x), start=0.5) + math.prod([x[0], 2.0])


def test_math_prod():
    check_against_python(products, C.ARR)
    f = pyad.jit_grad(_prod_only)
    assert f(np.zeros(0)) == 2.0 and f(np.array([3.0, 0.5])) == _prod_only(np.array([3.0, 0.5]))


def _prod_only(x):
    return math.prod(x, start=2.0)


def sorted_keys(x):
    p = {"b": x[1], "a": x[0], "c": x[2]}
    names = ("w", "u", "v")
    return sum((i + 1) * p[k] for i, k in enumerate(sorted(p, reverse=True))) + \
        sum(len(k) * p[k] for k in sorted(p)) + x[0] * len(sorted(names))


def test_sorted_of_keys_and_strings():
    check_against_python(sorted_keys, np.array([0.5, -1.5, 2.0]))
