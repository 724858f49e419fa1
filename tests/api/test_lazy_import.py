"""`import pyad` loads no code generator: llvmlite, cffi and `pyad.codegen` load with the first
compile (issue 19, item 1), so a program that imports pyad and compiles nothing, or compiles
later, does not wait for LLVM at import."""
from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
import numpy
import pyad
loaded_at_import = sorted(m for m in sys.modules
                          if m.split('.')[0] in ('llvmlite', 'cffi', '_cffi_backend')
                          or m.startswith('pyad.codegen'))

@pyad.jit_grad
def f(x):
    return x * x

value = f(3.0)
loaded_at_compile = sorted(m for m in ('llvmlite.binding', 'pyad.codegen.jit') if m in sys.modules)
print(json.dumps({"import": loaded_at_import, "compile": loaded_at_compile, "value": value}))
"""


def test_import_pyad_loads_no_code_generator():
    p = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["import"] == [], f"`import pyad` loaded {out['import']}"
    # the probe can see them: the first compile loads them
    assert out["compile"] == ["llvmlite.binding", "pyad.codegen.jit"]
    assert out["value"] == 9.0
