"""`import pyad` loads no code generator and no compiler: llvmlite, cffi, `pyad.codegen`
and pyad's passes (the frontend, AD, the IR optimizations, the interpreter) load with the
first compile (issue 19, item 1), so a program that imports pyad and compiles nothing, or
loads everything from the on-disk cache (tests/api/test_cache.py), does not wait for them."""
from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
import numpy
import pyad
COMPILER = ('pyad.codegen', 'pyad.pipeline', 'pyad.frontend.lower', 'pyad.ad', 'pyad.ir.ops',
            'pyad.ir.interp', 'pyad.ir.opt')
loaded_at_import = sorted(m for m in sys.modules
                          if m.split('.')[0] in ('llvmlite', 'cffi', '_cffi_backend')
                          or m.startswith(COMPILER))

@pyad.jit_grad(cache=False)
def f(x):
    return x * x

@pyad.jit_grad(cache=False)
def g(a):
    return numpy.sum(a * a)

value = f(3.0) + g.grad(numpy.ones(3))[0]
loaded_at_compile = sorted(m for m in ('llvmlite.binding', 'pyad.codegen.jit') if m in sys.modules)
print(json.dumps({"import": loaded_at_import, "compile": loaded_at_compile, "value": value,
                  "masked": 'numpy.ma' in sys.modules}))
"""


def test_import_pyad_loads_no_code_generator():
    p = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["import"] == [], f"`import pyad` loaded {out['import']}"
    # the probe can see them: the first compile loads them
    assert out["compile"] == ["llvmlite.binding", "pyad.codegen.jit"]
    assert out["value"] == 11.0
    # nor does a call with an array read `numpy.ma` (whose import took 18 ms of a first call)
    assert not out["masked"]
