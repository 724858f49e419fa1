"""Native wrappers shared by the kernels of one family (codegen/python/families.py): one
compiled wrapper per signature serves every function with a loop, calling the kernel whose
address its callable holds; each function keeps its own name, docstring, fallback, errors
and results."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad.api import families as api_families
from pyad.codegen.build import KernelSpec, WrapperSpec, compile_unit
from pyad.codegen.python import families
from pyad.codegen.unit import family_key


pytestmark = pytest.mark.skipif(not families.usable(), reason="capsule layout not verified")


def weighted(x, w):
    """the weighted sum of squares"""
    s = 0.0
    for i in range(len(x)):
        s += w[i] * x[i] * x[i]
    return s


def shifted(x, w):
    """the sum of shifted products"""
    s = 0.0
    for i in range(len(x)):
        s += (x[i] - 1.0) * w[i]
    return s


def straight(a, b):
    return a * b + a / b


def _wrappers_of(fn):
    """The library of the shared wrappers a callable calls, or None."""
    return fn.__self__.wrappers


def test_functions_of_one_signature_share_one_compiled_wrapper():
    f, g = pyad.jit_grad(weighted, cache=False), pyad.jit_grad(shifted, cache=False)
    x, w = np.array([0.5, -1.5, 2.0]), np.array([1.0, 3.0, 0.25])
    assert f(x, w) == weighted(x, w) and g(x, w) == shifted(x, w)
    spec_f, _ = f.bind((x, w))
    spec_g, _ = g.bind((x, w))
    pf, pg = spec_f.primal(), spec_g.primal()
    assert _wrappers_of(pf) is not None and _wrappers_of(pf) is _wrappers_of(pg)
    assert (pf.__name__, pg.__name__) == ("weighted", "shifted")
    assert (pf.__doc__, pg.__doc__) == (weighted.__doc__, shifted.__doc__)
    # gradients through their (shared) value-and-gradient wrappers, each its own kernel
    np.testing.assert_allclose(f.grad(x, w), 2.0 * w * x)
    np.testing.assert_allclose(g.grad(x, w), w)
    h = 1e-6  # central differences
    fd = [(weighted(x + h * e, w) - weighted(x - h * e, w)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(f.grad(x, w), fd, rtol=1e-7)
    # the unit's IR shows the wrappers too
    assert "PyEval_SaveThread" in f.llvm_ir(x, w) and "weighted" in f.llvm_ir(x, w)


def test_a_kernel_without_a_loop_keeps_its_own_inlined_wrapper():
    f = pyad.jit_grad(straight, cache=False)
    assert f(2.0, 4.0) == straight(2.0, 4.0)
    spec, _ = f.bind((2.0, 4.0))
    assert _wrappers_of(spec.primal()) is None


def _unit(fn, name: str, fam):
    from pyad import pipeline
    func = pipeline.native(pipeline.primal_ir(fn, ("f64[1d]", "f64[1d]"))[0])
    return compile_unit(name, [KernelSpec("primal", func)],
                        [WrapperSpec("primal", "primal", 0, fn.__doc__ or "")], pyname=name,
                        families=fam)


def test_messages_name_the_function_whose_wrapper_was_called():
    fam = families.Families().bound()
    a = _unit(weighted, "fa", fam).callables["primal"]
    b = _unit(shifted, "fb", fam).callables["primal"]
    assert _wrappers_of(a) is _wrappers_of(b)  # compiled once for both
    x = np.ones(3)
    with pytest.raises(TypeError, match=r"^fa\(\): argument 2 must be float64 1-D array"):
        a(x, [1.0])
    with pytest.raises(TypeError, match=r"^fb\(\) takes 2 arguments"):
        b(x)
    with pytest.raises(TypeError, match=r"^fb\(\) takes no keyword arguments"):
        b(x, w=x)
    with pytest.raises(IndexError, match="out of bounds"):
        a(x, np.ones(2))  # the kernel's own error, raised through the shared wrapper
    assert a(x, x) == 3.0 and b(x, x) == 0.0


def test_the_on_disk_cache_keeps_families_beside_the_units(tmp_path, monkeypatch):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path))
    key = family_key(("f64[1d]",), ("f64",), (), False, True, (("primal", 0),))
    store = api_families.STORE
    assert store.load(key) is None
    module, exports = families.emit_family(key)
    built = store.build(key, module, exports)
    loaded = store.load(key)
    assert built.address("primal") and loaded is not None and "primal" in loaded.exports
    assert [p.name.split("-")[0] for p in tmp_path.glob("*.pyad.so")] == ["wrappers"]


def test_family_entries_are_not_counted_as_units(tmp_path, monkeypatch):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path))
    before = dict(pyad.cache.stats())
    key = family_key(("f64[2d]",), ("f64",), (), False, True, (("primal", 0),))
    module, exports = families.emit_family(key)
    api_families.STORE.build(key, module, exports)
    assert api_families.STORE.load(key) is not None
    after = pyad.cache.stats()
    assert all(after[k] == before[k] for k in ("hits", "misses", "stores"))


def test_a_family_is_stored_in_every_cache_directory_that_needs_it(tmp_path, monkeypatch):
    fam = families.Families()
    key = family_key(("f64[1d]", "f64"), ("f64",), (), False, True, (("primal", 0),))
    first = fam.library(key)  # compiled into the JIT (a function that is not cached)
    for d in ("a", "b", "a"):
        monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path / d))
        assert fam.library(key, api_families.STORE) is first  # one library per process
    assert [len(list((tmp_path / d).glob("wrappers-*.pyad.so"))) for d in "ab"] == [1, 1]
