"""The key of the on-disk cache (pyad/api/fingerprint.py): everything a function's compiled
code depends on changes the digest, nothing else does. Functions are made with `exec` in
fresh namespaces, so each test controls exactly what their names are bound to."""
from __future__ import annotations

import dataclasses
import math
import types

import numpy as np
import pytest

import pyad
from pyad.api.fingerprint import Uncacheable, digest


def make(src: str, **names) -> types.FunctionType:
    """The last function `src` defines, in a namespace holding `names`."""
    ns = {"np": np, "math": math, "pyad": pyad, **names}
    exec(compile(src, "<fingerprint-test>", "exec"), ns)
    fns = [v for k, v in ns.items() if isinstance(v, types.FunctionType) and k not in names]
    return fns[-1]


BODY = "def f(x):\n    return helper(x) * K + np.sin(x)\n"
HELPER = "def helper(x):\n    return x * x\n"


def test_the_same_function_and_values_give_the_same_digest():
    helper = make(HELPER)
    a, b = make(BODY, helper=helper, K=2.0), make(BODY, helper=make(HELPER), K=2.0)
    assert digest(a) == digest(a) == digest(b)  # another object with the same code and values


@pytest.mark.parametrize("change", ["body", "helper", "constant", "constant type"])
def test_what_the_code_reads_changes_the_digest(change):
    base = make(BODY, helper=make(HELPER), K=2.0)
    other = {
        "body": lambda: make(BODY.replace("* K", "/ K"), helper=make(HELPER), K=2.0),
        "helper": lambda: make(BODY, helper=make(HELPER.replace("x * x", "x * x * x")), K=2.0),
        "constant": lambda: make(BODY, helper=make(HELPER), K=3.0),
        "constant type": lambda: make(BODY, helper=make(HELPER), K=2),
    }[change]()
    assert digest(base) != digest(other)


def test_defaults_closures_and_arrays_are_digested_by_value():
    src = "def f(x, k=1.0):\n    return x * k * W[0]\n"
    w = np.array([1.0, 2.0])
    base = digest(make(src, W=w))
    assert digest(make(src, W=w.copy())) == base
    assert digest(make(src, W=np.array([1.0, 2.5]))) != base
    assert digest(make(src, W=w.astype(np.float32))) != base
    assert digest(make(src.replace("k=1.0", "k=2.0"), W=w)) != base

    def closure(c):
        def f(x):
            return x * c
        return f
    assert digest(closure(2.0)) == digest(closure(2.0)) != digest(closure(3.0))


def test_attributes_of_user_modules_are_digested_by_the_names_the_code_uses():
    cfg = types.ModuleType("user_config")
    cfg.N, cfg.unused = 1.0, object()  # never named by the code: never digested
    src = "def f(x):\n    return x * cfg.N\n"
    base = digest(make(src, cfg=cfg))
    cfg.N = 2.0
    assert digest(make(src, cfg=cfg)) != base
    # numpy's, math's and pyad's contents are fixed by their versions (in the environment)
    assert digest(make("def f(x):\n    return np.sum(x) + math.pi\n")) == \
        digest(make("def f(x):\n    return np.sum(x) + math.pi\n"))


def test_recursion_and_mutual_recursion_terminate():
    ns: dict = {}
    exec("def even(n):\n    return 1.0 if n == 0 else odd(n - 1)\n"
         "def odd(n):\n    return 0.0 if n == 0 else even(n - 1)\n", ns)
    assert digest(ns["even"]) == digest(ns["even"]) != digest(ns["odd"])


def test_classes_by_their_fields_and_methods():
    def point(default):
        @dataclasses.dataclass
        class Point:
            x: float
            y: float = default
        return Point
    src = "def f(p):\n    return Point(p, p).x\n"
    assert digest(make(src, Point=point(1.0))) == digest(make(src, Point=point(1.0)))
    assert digest(make(src, Point=point(1.0))) != digest(make(src, Point=point(2.0)))


def test_namedtuple_classes_by_their_fields():
    import collections
    src = "def f(x):\n    return P(x, x).a\n"
    assert digest(make(src, P=collections.namedtuple("P", "a b"))) == \
        digest(make(src, P=collections.namedtuple("P", "a b")))
    assert digest(make(src, P=collections.namedtuple("P", "a b"))) != \
        digest(make(src, P=collections.namedtuple("P", "b a")))


def test_jit_grad_and_custom_vjp_functions_are_digested_through():
    helper = make(HELPER)
    src = "def f(x):\n    return g(x)\n"
    assert digest(make(src, g=pyad.jit_grad(helper))) != \
        digest(make(src, g=pyad.jit_grad(helper, fastmath=True)))
    rule = pyad.custom_vjp(make("def s(x):\n    return x\n"))
    rule.defvjp(make("def fwd(x):\n    return x, x\n"), make("def bwd(r, c):\n    return (c,)\n"))
    before = digest(make(src, g=rule))
    rule.defvjp(make("def fwd(x):\n    return x, x\n"),
                make("def bwd(r, c):\n    return (2.0 * c,)\n"))
    assert digest(make(src, g=rule)) != before


def test_objects_of_unknown_kind_are_uncacheable():
    class Opaque:
        pass
    with pytest.raises(Uncacheable, match="Opaque"):
        digest(make("def f(x):\n    return x * thing.w\n", thing=Opaque()))
