"""Parameter containers (pytrees): tuples, lists, dicts (string keys), namedtuples and
dataclasses of numbers and arrays, nested, as arguments; gradients in the same structure,
checked leaf by leaf against finite differences and the IR interpreter; containers as results
(pullback cotangents take their structure) and as global constants; pyad.tree_*."""
from __future__ import annotations

import dataclasses
from collections import namedtuple

import numpy as np
import pytest

import pyad
from tests.gradients import assert_same_structure_leaves, check_against_python

Point = namedtuple("Point", "x y")


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float
    scale: tuple = (1.0, 2.0)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: float
    n: int


CONSTANTS = {"gain": 2.0, "offsets": (0.5, -1.0), "where": Point(1.0, 3.0)}


def dict_loss(p, x):
    return np.sum((p["w"] * x + p["b"]) ** 2) + p["reg"][0] * np.sum(p["w"] ** 2)


def nested(p):
    q = p["inner"]
    return q["a"] * q["list"][1] + p["pair"][0] * np.sum(p["pair"][1])


def namedtuple_loss(pt, k):
    return pt.x ** 2 * pt[1] + k * pt[-2]


def dataclass_loss(layer, x):
    return np.sum(np.tanh(layer.w @ x + layer.b)) * layer.scale[1]


def mixed_ints(fz, p):
    return fz.a ** fz.n + p[0] * p[1]


def list_arg(xs):
    return xs[0] * xs[1] + xs[2]


def global_constants(x):
    return CONSTANTS["gain"] * x + CONSTANTS["offsets"][1] + CONSTANTS["where"].y * x * x


def dict_result(x, y):
    return {"sum": x + y, "prod": x * y, "both": (x, y * 2.0)}


def dict_result_dotted(x, y):
    """<ct, dict_result(x, y)> for the cotangent CT: a scalar function, so the interpreter
    oracle checks its gradient, which the pullback of dict_result at CT must equal."""
    d = dict_result(x, y)
    return 1.0 * d["sum"] - 2.0 * d["prod"] + 0.5 * d["both"][0] + 3.0 * d["both"][1]


CT = {"sum": 1.0, "prod": -2.0, "both": (0.5, 3.0)}


def namedtuple_result(x):
    return Point(x * 2.0, y=x * x)


def helper_of_dict(p, x):
    return p["a"] * x + p["b"]


def calls_helper(p, x):
    return helper_of_dict(p, x) * helper_of_dict({"a": x, "b": 1.0}, p["a"])


RNG = np.random.default_rng(0)
CASES = [
    (dict_loss, ({"w": RNG.normal(size=3), "b": 0.3, "reg": (0.1,)}, np.linspace(0, 1, 3))),
    (nested, ({"inner": {"a": 1.5, "list": [2.0, 3.0]}, "pair": (0.5, RNG.normal(size=2))},)),
    (namedtuple_loss, (Point(1.5, -2.0), 0.75)),
    (dataclass_loss, (Layer(RNG.normal(size=(2, 3)), 0.1), RNG.normal(size=3))),
    (dataclass_loss, (Layer(RNG.normal(size=(2, 3)), 0.1, (0.5, 3.0)), RNG.normal(size=3))),
    (mixed_ints, (Frozen(1.3, 3), (2.0, 4))),
    (list_arg, ([1.0, 2.0, 3.0],)),
    (global_constants, (1.25,)),
    (dict_result, (1.5, -0.5)),
    (namedtuple_result, (1.5,)),
    (calls_helper, ({"a": 2.0, "b": 0.5}, 1.5)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{i}"
                                                for i, c in enumerate(CASES)])
def test_value_and_gradients_leaf_by_leaf(fn, args):
    check_against_python(fn, *args)


def test_gradients_come_back_in_the_argument_structure():
    p = {"w": np.array([1.0, -2.0]), "b": 0.5, "reg": (0.25,)}
    x = np.array([0.5, 1.5])
    g = pyad.grad(dict_loss)(p, x)
    assert isinstance(g, dict) and sorted(g) == ["b", "reg", "w"]
    r = p["w"] * x + p["b"]
    np.testing.assert_allclose(g["w"], 2 * r * x + 2 * 0.25 * p["w"], rtol=1e-14)
    assert g["b"] == pytest.approx(2 * np.sum(r), rel=1e-14)
    assert g["reg"] == (pytest.approx(np.sum(p["w"] ** 2), rel=1e-14),)
    g = pyad.jit_grad(mixed_ints).grad(Frozen(1.3, 3), (2.0, 4))
    assert type(g) is Frozen and g.n is None and g.a == pytest.approx(3 * 1.3 ** 2)
    g = pyad.jit_grad(dataclass_loss).grad(Layer(np.ones((2, 3)), 0.1), np.ones(3))
    assert type(g) is Layer and g.w.shape == (2, 3) and g.scale[0] == 0.0
    assert type(pyad.jit_grad(list_arg).grad([1.0, 2.0, 3.0])) is list
    assert type(pyad.jit_grad(namedtuple_loss).grad(Point(1.0, 2.0), 1.0)) is Point


def test_results_and_cotangents_take_the_result_structure():
    f = pyad.jit_grad(dict_result, argnums="all")
    assert f(1.5, -0.5) == dict_result(1.5, -0.5)
    y, back = f.pullback(1.5, -0.5)
    assert y == dict_result(1.5, -0.5)
    g = back({"sum": 1.0, "prod": 0.0, "both": (0.0, 1.0)})
    assert g == (pytest.approx(1.0), pytest.approx(3.0))
    dotted = check_against_python(dict_result_dotted, 1.5, -0.5)
    assert_same_structure_leaves(back(CT), dotted.grad(1.5, -0.5))
    with pytest.raises(TypeError, match=r"cotangent must have the structure of the result: "
                                        r"a dict with keys \['both', 'prod', 'sum'\]"):
        back({"sum": 1.0})
    out = pyad.jit_grad(namedtuple_result)(2.0)
    assert type(out) is Point and out == namedtuple_result(2.0)


def test_a_new_structure_compiles_anew():
    f = pyad.jit_grad(helper_of_dict)
    assert f({"a": 2.0, "b": 1.0}, 3.0) == 7.0
    assert f({"a": 2.0, "b": 1}, 3.0) == 7.0            # an int leaf: another signature
    assert f({"a": 2.0, "b": 1.0, "c": 0.0}, 3.0) == 7.0  # another key: another structure
    assert len(f._specs) == 3


def test_tree_utilities():
    tree = (1.0, {"w": np.ones(2), "c": [3, 4]}, Point(5.0, None), Frozen(6.0, 7))
    leaves, treedef = pyad.tree_flatten(tree)
    assert [np.asarray(v).tolist() for v in leaves] == [1.0, 3, 4, [1.0, 1.0], 5.0, 6.0, 7]
    assert pyad.tree_leaves(tree)[3] is tree[1]["w"]
    back = pyad.tree_unflatten(treedef, leaves)
    assert type(back[1]) is dict and type(back[2]) is Point and type(back[3]) is Frozen
    assert back[2].y is None and back[1]["c"] == [3, 4]
    doubled = pyad.tree_map(lambda v: v * 2, tree)
    assert doubled[3] == Frozen(12.0, 14) and doubled[1]["c"] == [6, 8]
    summed = pyad.tree_map(lambda a, b: a + b, tree, doubled)
    np.testing.assert_array_equal(summed[1]["w"], [3.0, 3.0])
    assert pyad.tree_structure(tree) == pyad.tree_structure(doubled)
    with pytest.raises(TypeError, match="tree_map argument must have the structure"):
        pyad.tree_map(lambda a, b: a, tree, (1.0,))


def test_refusals(tmp_path):
    f = pyad.jit_grad(helper_of_dict)
    with pytest.raises(TypeError, match=r"helper_of_dict\(\) argument 'p': dict keys "
                                        r"must be strings, not int"):
        f({1: 2.0}, 1.0)
    with pytest.raises(TypeError, match=r"helper_of_dict\(\) argument \"p\['a'\]\" must be "
                                        r"a float, int, bool, str, numpy array, None, or a tuple"):
        f({"a": 1j, "b": 1.0}, 1.0)
    with pytest.raises(pyad.PyadTypeError, match="a string cannot be used as a number"):
        f({"a": "x", "b": 1.0}, 1.0)   # a compile-time value, refused where it is used
    with pytest.raises(pyad.PyadTypeError, match=r"the dict has no key 'a' \(its keys: 'b', "
                                                 r"'c'\)") as e:
        f({"b": 1.0, "c": 2.0}, 1.0)
    assert e.value.line == helper_of_dict.__code__.co_firstlineno + 1
    from tests.modules import assert_refused
    assert_refused(tmp_path, "p", "p[0]", ({"a": 1.0},),
                   "unsupported indexing of a dict: only a constant string key")
    assert_refused(tmp_path, "p", "p[-len(p)]", (Point(1.0, 2.0),),
                   "unsupported indexing of a namedtuple Point")
    assert_refused(tmp_path, "p", "p.a", ({"a": 1.0},), "unsupported attribute access `.a` on "
                   "a dict")
    assert_refused(tmp_path, "p", "p.z", (Point(1.0, 2.0),), "namedtuple Point has no field `z`")
    assert_refused(tmp_path, "p", "p + 1.0", ({"a": 1.0},),
                   "a dict cannot be used as a number here")
    assert_refused(tmp_path, "x", "{1: x}", (1.0,), "unsupported dict: keys must be constant "
                   "strings")
    assert_refused(tmp_path, "p", "p.items()", ({"a": 1.0},), "of a dict's methods only "
                   "`copy`, `get`, `values` and, in a `for` or a comprehension, `keys` and "
                   "`items` compile")
    assert_refused(tmp_path, "p", "p.get('b') + 1.0", ({"a": 1.0},), "None cannot be used "
                   "as a number")   # get of a missing key is None, known when compiling
    assert_refused(tmp_path, "p", "{**p['a']}", ({"a": 1.0},), "only a dict can be unpacked "
                   "into a dict here")
    with pytest.raises(pyad.PyadTypeError, match="cannot assign into this dict: it is a "
                       "parameter") as e:
        pyad.jit_grad(stores_into)({"a": 1.0})
    assert e.value.line == stores_into.__code__.co_firstlineno + 1


def stores_into(p):
    p["a"] = 2.0
    return p["a"]


def copies_and_updates(params, x):
    p = dict(params)
    q = {**p, "b": p["b"] * 2.0}
    r = dict(q, c=3.0)
    s = r.copy()
    t = dict(w=s["w"], b=s.get("b", 0.0), **{"d": x})
    lr = params.get("lr", 0.1) + t.get("b") + t["d"]
    inner = {"o": {"k": x}}
    return np.sum(t["w"] * x) * lr + s["c"] + inner["o"].get("k", 1.0), {**q, "x": x}


def test_dict_copies_updates_and_get():
    from tests.gradients import check_against_python
    check_against_python(copies_and_updates, {"w": np.array([1.0, 2.0]), "b": 0.5}, 1.5)


def state_in_a_dict(x):
    st = {"pos": 0.0, "vel": x}
    for _ in range(10):
        st["pos"] = st["pos"] + 0.1 * st["vel"]
        st["vel"] -= 0.1 * st["pos"]
        if st["pos"] > 0.5:
            st["vel"] = st["vel"] * 0.5
    st["k"] = len(st) + (1.0 if "vel" in st else 0.0) + (2.0 if "hit" not in st else 0.0)
    return st["pos"] * st["k"], st


def descent_in_a_dict(params, X, y):
    p = dict(params)
    for it in range(4):
        r = X @ p["w"] + p["b"] - y
        p["w"] = p["w"] - 0.1 * X.T @ r / len(y)
        p["b"] -= 0.1 * np.mean(r)
    q = p.copy()
    q["b"] = 2.0 * q["b"]
    return np.sum((X @ p["w"] + p["b"] - y) ** 2) + q["b"] + p.get("c", 0.5)


def test_assigning_into_a_dict_of_the_function():
    """dictstate.py: an assignment into a dict bound only to new dicts and read only by
    subscripts rebinds the name; in a loop the dict is carried (the first version of this
    lost the loop's updates: 0.0 where CPython gives 0.84)."""
    from tests.gradients import check_against_python
    rng = np.random.default_rng(3)
    check_against_python(state_in_a_dict, 1.0)
    check_against_python(state_in_a_dict, 9.0)
    check_against_python(descent_in_a_dict, {"w": rng.normal(size=3), "b": 0.1},
                         rng.normal(size=(6, 3)), rng.normal(size=6))


def _into_parameter(p):
    p["w"] = 1.0
    return p["w"]


def _into_alias(x):
    d = {"a": x}
    e = d
    d["a"] = 2.0 * x
    return e["a"]


def _into_passed(x):
    d = {"a": x}
    h = _identity(d)
    d["a"] = 2.0
    return h["a"]


def _identity(q):
    return q


def _into_read_by_lambda(x):
    d = {"a": x}
    f = lambda: d["a"]  # noqa: E731
    d["a"] = 2.0
    return f()


def _into_loop_target(x):
    for d in ({"a": x}, {"a": 2.0 * x}):
        d["a"] = 1.0
    return x


@pytest.mark.parametrize("fn, why", [
    (_into_parameter, "it is a parameter"), (_into_alias, "another name, container"),
    (_into_passed, "another name, container"), (_into_read_by_lambda, "a nested function"),
    (_into_loop_target, "it is bound to something other than a new dict")])
def test_assigning_into_a_dict_others_may_hold_is_refused(fn, why):
    with pytest.raises(pyad.PyadTypeError, match="cannot assign into this dict: " + why) as e:
        pyad.jit_grad(fn)({"w": 2.0} if fn is _into_parameter else 1.0)
    assert "p = {**p, 'key': value}" in str(e.value)
    assert e.value.line is not None


def loops_over_keys(params, X, y):
    p = dict(params)
    for it in range(3):
        r = X @ p["w"] + p["b"] - y
        g = {"w": X.T @ r / len(y), "b": np.mean(r)}
        for k in ("w", "b"):
            p[k] = p[k] - 0.1 * g[k]
        p = {k: v * 0.99 for k, v in p.items()}
    total = 0.0
    for k, v in p.items():
        total += np.sum(v ** 2) if k == "w" else v ** 2
    bv, wv = p.values()
    total += bv + np.sum(wv)
    s = sum(p[k] * 2.0 for k in p if k != "w")
    n = len([p[k] for k in p.keys()])
    scaled = {name: 3.0 * params[name] for name in params}
    return total + s + n + scaled["b"], scaled


def test_loops_and_comprehensions_over_the_keys_of_a_dict():
    """dictiter.py: unrolled once per key, the key a constant (params inserted in sorted
    order, so CPython's order is pyad's)."""
    from tests.gradients import check_against_python
    rng = np.random.default_rng(5)
    check_against_python(loops_over_keys, {"b": 0.1, "w": rng.normal(size=3)},
                         rng.normal(size=(6, 3)), rng.normal(size=6))


def keys_and_names(p):
    return [k for k in p], "total", (p["a"], "a")


def test_strings_in_results_are_the_compile_time_strings():
    assert pyad.jit_grad(keys_and_names)({"a": 1.0, "b": 2.0}) == keys_and_names(
        {"a": 1.0, "b": 2.0})


def test_loops_over_keys_refused_where_they_cannot_be_unrolled(tmp_path):
    from tests.modules import assert_refused
    assert_refused(tmp_path, "p", "{k + 'x': v for k, v in p.items()}", ({"a": 1.0},),
                   "the keys of a dict comprehension are its loop's keys")
    assert_refused(tmp_path, "p", "{k: v for k, v in p.items() if v > 0}", ({"a": 1.0},),
                   "unsupported dict comprehension")
    assert_refused(tmp_path, "p", "[kv for kv in p.items()]", ({"a": 1.0},),
                   "a loop over .items\\(\\) here unpacks `key, value`")
    with pytest.raises(pyad.PyadError, match="cannot break or continue") as e:
        pyad.jit_grad(_breaks_in_a_key_loop)({"a": 1.0, "b": 2.0})
    assert e.value.line == _breaks_in_a_key_loop.__code__.co_firstlineno + 2


def _breaks_in_a_key_loop(p):
    t = 0.0
    for k in p:
        t += p[k]
        if t > 1.0:
            break
    return t


NAMES = ("a", "b", "c")


def comprehensions_as_loops(x):
    """Dict comprehensions over a tuple of strings (enumerate, a filter on the keys, two
    loops), and a display whose key is a name bound to a string."""
    p = {n: x[i] ** 2 for i, n in enumerate(NAMES)}
    q = {k: np.sum(x[j]) for j, k in enumerate(("u", "v", "w")) if k != "v"}
    r = {a: x[1, 0] * 2.0 for a in ("x", "y2") for b in ("1", "22") if b != "1"}
    key = "z"
    s = {key: x[0, 0], **r}
    return np.sum(p["b"] * p["c"]) + q["u"] * q["w"] + s["z"] * len(r) + s["y2"]


def test_dict_comprehensions_lowered_as_their_loops():
    from tests.gradients import check_against_python
    check_against_python(comprehensions_as_loops, np.random.default_rng(1).normal(size=(3, 4)))
