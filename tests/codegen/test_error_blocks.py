"""The emitter's error exits (codegen/lower/emit.py, `KernelEmitter.check`): the checks of
one error (kind, message, line) branch to one block that raises it, with one copy of its
message, instead of each check getting its own (the code of error exits was a large part of
what LLVM optimized and compiled for array-heavy functions)."""
from __future__ import annotations

import re

import numpy as np
import pytest
from llvmlite import ir

import pyad
from pyad import pipeline
from pyad.codegen.lower.emit import emit_kernel


def three_broadcasts(x, y, z):
    return np.sum((x + y) * z - np.sort(x * z))


def _kernel_text(fn, sig) -> str:
    func, _ = pipeline.primal_ir(fn, sig)
    module = ir.Module(name="t")
    emit_kernel(module, pipeline.native(func), "k")
    return str(module)


def test_the_checks_of_one_error_share_its_block_and_message():
    text = _kernel_text(three_broadcasts, ("f64[1d]",) * 3)
    line = three_broadcasts.__code__.co_firstlineno + 1
    message = f"operands could not be broadcast together (line {line} of test_error_blocks.py)"
    assert text.count(message) == 1  # one message for the three checks of the line
    raising = re.findall(r'br i1 [^,]+, label %"(raise[.\d]*)"', text)
    assert len(raising) > len(set(raising)) >= 2, raising  # blocks reached from several checks
    after = text.split(f"\n{raising[0]}:\n", 1)[1]
    block = re.split(r"(?m)^\S+:$", after, maxsplit=1)[0]
    assert block.count("ret i32") == 1 and message[:20] not in block  # the message is a global


def test_each_check_still_raises_its_error():
    f = pyad.jit_grad(three_broadcasts, argnums="all", cache=False)
    x, y, z = np.arange(3.0), np.arange(3.0) + 1.0, np.linspace(-1.0, 1.0, 3)
    assert f(x, y, z) == three_broadcasts(x, y, z)
    pyad.check_grad(f, x, y, z)
    line = three_broadcasts.__code__.co_firstlineno + 1
    for args in [(x, y[:2], z), (x, y, z[:2]), (x[:2], y[:2], z)]:
        with pytest.raises(ValueError, match=rf"could not be broadcast together \(line {line} "):
            f(*args)
