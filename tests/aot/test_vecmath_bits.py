"""The math kernels (codegen/lower/vecmath.py) in a C library built by `pyad compile` for the
default generic CPU (x86-64-v2: SSE vectors, no FMA) give the bits of the JIT (host CPU,
wider vectors): per element in scalar functions, in the vector body and the remainder of an
array function, and in gradients. The library calls no libm function for them."""
from __future__ import annotations

import numpy as np
import pytest

import pyad
from pyad.codegen.aot.header import cdef

from ..modules import load_module
from .tools import nm, pyad_compile, requires_toolchain

# one worker compiles the module's libraries (fixtures) for all its tests (tests/conftest.py)
pytestmark = [requires_toolchain, pytest.mark.xdist_group("aot_vecmath_bits")]

NAMES = ("exp", "expm1", "log", "log1p", "tanh")
SOURCE = "import math\n\nimport numpy as np\n" + "".join(f'''

def s_{n}(a):
    return math.{n}(a)


def sum_{n}(x):
    return np.sum(np.{n}(x))
''' for n in NAMES)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    import cffi
    tmp = tmp_path_factory.mktemp("vk")
    module = load_module(tmp / "vk.py", SOURCE)
    funcs = [f"{k}_{n}" for n in NAMES for k in ("s", "sum")]
    sigs = []
    for n in NAMES:
        sigs += ["--sig", "f64(f64)", "--sig", "f64(f64[:])"]
    proc = pyad_compile(f"vk.py:{','.join(funcs)}", *sigs, "-o", str(tmp / "out"), cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    ffi = cffi.FFI()
    ffi.cdef(cdef((tmp / "out" / "vk.h").read_text()))
    return module, ffi, ffi.dlopen(str(tmp / "out" / "libvk.so")), tmp / "out" / "libvk.so"


def _bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize("name", NAMES)
def test_library_has_the_jits_bits(name, built):
    module, ffi, lib, _ = built
    rng = np.random.default_rng(5)
    scalar_jit = pyad.jit_grad(getattr(module, f"s_{name}"))
    loss_jit = pyad.jit_grad(getattr(module, f"sum_{name}"))
    for n in (7, 8, 9, 33):
        x = rng.uniform(0.1, 4.0, n) if name.startswith("log") else rng.uniform(-4.0, 4.0, n)
        out, value, grad = ffi.new("double *"), ffi.new("double *"), ffi.new("double *")
        for v in x:
            assert getattr(lib, f"vk_s_{name}_grad")(v, value, grad) == 0
            assert _bits([value[0], grad[0]]).tolist() == \
                _bits([scalar_jit(v), scalar_jit.grad(v)]).tolist()
        g = np.full(n, np.nan)
        xp = ffi.from_buffer("double[]", x)
        assert getattr(lib, f"vk_sum_{name}_grad")(xp, n, value, ffi.from_buffer("double[]", g)) == 0
        want_value, want_grad = loss_jit.value_and_grad(x)
        assert _bits([value[0]]).tolist() == _bits([want_value]).tolist()
        assert np.array_equal(_bits(g), _bits(want_grad))


def test_library_calls_no_libm_for_the_kernels(built):
    undefined = {sym for kind, sym in nm("-D", "--undefined-only", str(built[3]))}
    assert not undefined & set(NAMES), undefined
