"""The on-disk cache (pyad/api/cache.py) within one process: where it is, what is on by
default, options in the key, clearing, the size bound, unwritable directories, concurrent
first calls, functions the key cannot digest, and two functions loading one shared object.
Each test has its own cache directory (PYAD_CACHE_DIR)."""
from __future__ import annotations

import gc
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import pyad
from pyad.api import cache


def scalar_body(a, b):
    s = 0.0
    for i in range(4):
        s += a * b + a / (i + 1.0)
    return s


def array_body(x, k):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[k]  # x[k] keeps a bounds check (x[i] needs none)
    return s


def other_body(a):
    return a * a * a


class Opaque:
    """An object of a kind the key cannot digest."""
    def __init__(self, w: float) -> None:
        self.w = w


# A global named like the attribute the function below reads: the key digests every name
# the code mentions (attributes too), and cannot digest this object.
shape = Opaque(2.0)


def mentions_an_opaque_global(x):
    return x.shape[0] * np.sum(x)


@pytest.fixture
def cache_in_tmp(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("PYAD_CACHE_DIR", str(d))
    return d


def _delta(before: dict) -> dict:
    after = cache.stats()
    return {k: after[k] - before[k] for k in after}


def _entries(d: Path) -> list[Path]:
    """The entries of units (not those of the families of shared wrappers: api/families.py)."""
    return sorted(p for p in d.glob("*" + cache.SUFFIX)
                  if not p.name.startswith((".", "wrappers-")))


def test_cache_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert pyad.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("PYAD_CACHE_DIR")
    assert pyad.cache_dir() == tmp_path / "xdg" / "pyad"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert pyad.cache_dir() == tmp_path / "home" / ".cache" / "pyad"


def test_on_by_default_for_functions_in_files(cache_in_tmp, monkeypatch):
    before = cache.stats()
    assert pyad.jit_grad(other_body)(2.0) == 8.0  # this file: cached
    assert _delta(before)["stores"] == 1
    namespace: dict = {}
    exec("def typed(a):\n    return a + 1.0\n", namespace)  # no file: not cached
    assert not cache.default_enabled(namespace["typed"])
    assert pyad.jit_grad(other_body, cache=False)(3.0) == 27.0
    monkeypatch.setenv("PYAD_CACHE", "0")
    assert not cache.default_enabled(other_body)
    before = cache.stats()
    assert pyad.jit_grad(scalar_body)(1.0, 2.0) == scalar_body(1.0, 2.0)
    assert pyad.jit_grad(array_body, cache=True)(np.ones(3), 1) == 3.0  # asked for
    d = _delta(before)
    assert (d["misses"], d["stores"]) == (1, 1)
    assert len(_entries(cache_in_tmp)) == 2


def test_options_are_part_of_the_key(cache_in_tmp):
    x = np.array([1.0, -2.0, 3.0])
    before = cache.stats()
    plain = pyad.jit_grad(scalar_body, cache=True)
    fast = pyad.jit_grad(scalar_body, cache=True, fastmath=True)
    checked = pyad.jit_grad(array_body, cache=True)
    unchecked = pyad.jit_grad(array_body, cache=True, boundscheck=False)
    ir_plain, ir_fast = plain.llvm_ir(1.5, 2.0), fast.llvm_ir(1.5, 2.0)
    ir_checked, ir_unchecked = checked.llvm_ir(x, 1), unchecked.llvm_ir(x, 1)
    d = _delta(before)
    assert (d["hits"], d["misses"], d["stores"]) == (0, 4, 4)  # no option served another's
    assert " fast " in ir_fast and " fast " not in ir_plain
    assert "pyad_index_error" in ir_checked and "pyad_index_error" not in ir_unchecked

    # new function objects load each from disk, the right one each
    before = cache.stats()
    assert pyad.jit_grad(scalar_body, cache=True).llvm_ir(1.5, 2.0) == ir_plain
    assert pyad.jit_grad(scalar_body, cache=True, fastmath=True).llvm_ir(1.5, 2.0) == ir_fast
    assert pyad.jit_grad(array_body, cache=True).llvm_ir(x, 1) == ir_checked
    assert pyad.jit_grad(array_body, cache=True, boundscheck=False).llvm_ir(x, 1) == ir_unchecked
    d = _delta(before)
    assert (d["hits"], d["misses"], d["stores"]) == (4, 0, 0)
    assert pyad.jit_grad(scalar_body, cache=True, fastmath=True)(1.5, 2.0) == \
        pytest.approx(scalar_body(1.5, 2.0), rel=1e-14)


def test_functions_sharing_a_shared_object_keep_their_own_fallbacks(cache_in_tmp):
    first = pyad.jit_grad(other_body)
    assert first(1.5) == 1.5 ** 3
    second = pyad.jit_grad(other_body)
    before = cache.stats()
    assert second(2.0) == 8.0  # the same file, loaded again
    assert _delta(before)["hits"] == 1
    del first
    gc.collect()
    # an int goes to the wrapper's fallback: second's dispatcher (a fallback kept by the
    # library would be first's, dead now)
    assert second(3) == 27
    assert second.grad(2.0) == 12.0


def test_uncacheable_functions_compile_and_are_counted(cache_in_tmp):
    before = cache.stats()
    f = pyad.jit_grad(mentions_an_opaque_global)
    x = np.array([1.0, 2.0])
    assert f(x) == 6.0 and f.grad(x).tolist() == [2.0, 2.0]
    d = _delta(before)
    assert d["uncacheable"] >= 1 and d["stores"] == 0
    assert _entries(cache_in_tmp) == []


def test_clear_cache_removes_only_entries(cache_in_tmp):
    f = pyad.jit_grad(scalar_body, cache=True)
    f(1.0, 2.0)
    f.grad(1.0, 2.0)
    unrelated = ["notes.txt", "old.pyadobj", ".tmp-x.txt"]
    for name in unrelated:
        (cache_in_tmp / name).write_text("keep me")
    (cache_in_tmp / f".tmp-abc{cache.SUFFIX}").write_bytes(b"left by a crashed writer")
    assert len(_entries(cache_in_tmp)) == 2
    families = list(cache_in_tmp.glob("wrappers-*"))  # shared wrappers (api/families.py)

    assert pyad.clear_cache() == 3 + len(families)
    assert sorted(p.name for p in cache_in_tmp.iterdir()) == sorted(unrelated)
    assert pyad.clear_cache() == 0
    before = cache.stats()
    assert pyad.jit_grad(scalar_body, cache=True)(1.0, 2.0) == f(1.0, 2.0)
    assert _delta(before)["misses"] == 1  # the entry is really gone


def test_clear_cache_without_a_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("PYAD_CACHE_DIR", str(tmp_path / "never-created"))
    assert pyad.clear_cache() == 0


def test_the_directory_stays_under_its_bound_least_recently_used_out(cache_in_tmp,
                                                                     monkeypatch):
    pyad.jit_grad(other_body)(1.0)
    one = _entries(cache_in_tmp)[0].stat().st_size
    # a turn below stores up to two units and two families of shared wrappers (of about the
    # same size): three quarters of the bound hold more than a turn
    monkeypatch.setenv("PYAD_CACHE_MAX_BYTES", str(10 * one))
    calls = [(scalar_body, (1.0, 2.0)), (array_body, (np.ones(2), 1)),
             (scalar_body, (1.0, 2))]
    before = cache.stats()
    for body, args in calls:
        hits = cache.stats()["hits"]
        assert pyad.jit_grad(other_body)(2.0) == 8.0  # a hit: used last, evicted last
        assert cache.stats()["hits"] == hits + 1
        f = pyad.jit_grad(body)
        f(*args)
        f.grad(*args)
        total = sum(p.stat().st_size for p in cache_in_tmp.glob("*" + cache.SUFFIX))
        assert total <= 10 * one * 1.5  # entries differ in size: the bound + one entry at most
    assert _delta(before)["evicted"] > 0


def test_unwritable_cache_dir_warns_once_and_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")  # works as root too, unlike a chmod
    monkeypatch.setenv("PYAD_CACHE_DIR", str(blocker / "cache"))
    before = cache.stats()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # pyad, not the warnings registry, must deduplicate
        f = pyad.jit_grad(scalar_body, cache=True, argnums="all")
        g = pyad.jit_grad(other_body, cache=True)
        assert f(1.5, 2.0) == scalar_body(1.5, 2.0)
        assert f.grad(1.5, 2.0) == pytest.approx((4 * 2.0 + sum(1 / (i + 1.0) for i in range(4)),
                                                  4 * 1.5), rel=1e-14)
        assert g(2.0) == 8.0
    mine = [w for w in caught if issubclass(w.category, cache.PyadCacheWarning)]
    assert len(mine) == 1, [str(w.message) for w in caught]
    assert str(blocker / "cache") in str(mine[0].message)
    assert _delta(before)["stores"] == 0


def test_concurrent_first_calls_store_once(cache_in_tmp):
    f = pyad.jit_grad(other_body, cache=True)
    barrier = threading.Barrier(4)
    out: list = []

    def call():
        barrier.wait()
        out.append(f(1.5))

    before = cache.stats()
    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [1.5 ** 3] * 4
    d = _delta(before)
    assert (d["misses"], d["stores"]) == (1, 1)
    assert len(_entries(cache_in_tmp)) == 1


def test_without_a_linker_functions_compile_into_the_jit_with_one_warning(cache_in_tmp,
                                                                          monkeypatch,
                                                                          tmp_path):
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no ld
    monkeypatch.setenv("CC", str(empty / "cc"))  # no C compiler
    monkeypatch.setattr(cache, "_disabled", set())  # this process's switch, restored after
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = pyad.jit_grad(scalar_body, cache=True)
        assert f(1.5, 2.0) == scalar_body(1.5, 2.0)
        assert f.grad(1.5, 2.0) == pytest.approx(4 * 2.0 + sum(1 / (i + 1.0) for i in range(4)),
                                                 rel=1e-14)
        assert pyad.jit_grad(other_body, cache=True)(2.0) == 8.0
    mine = [w for w in caught if issubclass(w.category, cache.PyadCacheWarning)]
    assert len(mine) == 1 and "link" in str(mine[0].message)
    assert _entries(cache_in_tmp) == []
    assert not [p for p in cache_in_tmp.iterdir() if p.name.startswith(".tmp-")]
