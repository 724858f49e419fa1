"""The source pyad compiles is the source the function was made from (pyad/frontend/recover.py):
a module edited after import, a function wrapped by another decorator and a function whose
text cannot be found are refused with golden-tested messages; edits that leave the function's
code as it was, and text kept in `linecache` under a name of one's own, compile."""
from __future__ import annotations

import linecache
import math
import os
import re
import sys
from pathlib import Path

import pytest

import pyad

from ..golden_files import check_golden
from ..modules import load_module

MODEL = '''\
import math


def helper(x):
    return math.sin(x) * 2.0


def f(x):
    y = helper(x)
    return y * x
'''

USES_MODEL = '''\
import model


def g(x):
    return model.helper(x) + 1.0
'''


def message(exc: BaseException, tmp_path: Path) -> str:
    return str(exc).replace(str(tmp_path) + os.sep, "") + "\n"


def rewrite(path: Path, text: str) -> None:
    """Edit a file as an editor would (a later modification time, whatever the clock's
    resolution)."""
    stat = path.stat()
    path.write_text(text)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


def test_a_function_whose_file_changed_after_import_is_refused(tmp_path):
    path = tmp_path / "model.py"
    f = pyad.jit_grad(load_module(path, MODEL).f)
    assert f(1.5) == pytest.approx(2.0 * math.sin(1.5) * 1.5, rel=1e-15)
    rewrite(path, MODEL.replace("y * x", "y / x"))
    with pytest.raises(pyad.PyadSyntaxError, match="changed after it was defined") as info:
        f(2)  # a new signature: compiled now, from a file that no longer defines f
    check_golden("errors/source_changed.txt", message(info.value, tmp_path))
    assert f(1.5) == pytest.approx(2.0 * math.sin(1.5) * 1.5, rel=1e-15)  # compiled before


def test_a_helper_whose_file_changed_is_refused_at_the_call(tmp_path, monkeypatch):
    path = tmp_path / "model.py"
    monkeypatch.setitem(sys.modules, "model", load_module(path, MODEL))
    g = pyad.jit_grad(load_module(tmp_path / "uses_model.py", USES_MODEL).g)
    rewrite(path, MODEL.replace("math.sin(x) * 2.0", "math.cos(x) * 2.0"))
    with pytest.raises(pyad.PyadSyntaxError, match="cannot compile `model.helper`, called "
                       "here: the source of helper changed after it was defined") as info:
        g(1.0)
    assert info.value.line == 5 and f"line 4 of {path} is not the code" in str(info.value)


def test_edits_that_leave_the_function_as_it_was_are_accepted(tmp_path):
    path = tmp_path / "model.py"
    f = pyad.jit_grad(load_module(path, MODEL).f)
    # text appended below, a comment on the same line: the code of f and helper is unchanged
    rewrite(path, MODEL.replace("return y * x", "return y * x  # the model") +
            "\n\ndef added(x):\n    return x\n")
    assert f(1.5) == pytest.approx(2.0 * math.sin(1.5) * 1.5, rel=1e-15)
    assert f.grad(1.5) == pytest.approx(
        2.0 * math.cos(1.5) * 1.5 + 2.0 * math.sin(1.5), rel=1e-14)


WRAPPED = '''\
import functools

import pyad

CALLS = []


def log_calls(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        CALLS.append(args)
        return fn(*args)
    return wrapper


@pyad.jit_grad
@log_calls
def f(x):
    return x * x


@log_calls
def helper(x):
    return x + 1.0


def calls_helper(x):
    return helper(x) * 2.0


@log_calls
@pyad.jit_grad
def h(x):
    return x * 3.0
'''


def test_a_function_wrapped_by_another_decorator_is_refused_at_the_decorator(tmp_path):
    mod = load_module(tmp_path / "wrapped.py", WRAPPED)
    with pytest.raises(pyad.PyadSyntaxError, match="wrapped by the decorator `@log_calls`") as info:
        mod.f(1.0)
    check_golden("errors/wrapped_function.txt", message(info.value, tmp_path))


def test_a_wrapped_helper_is_refused_at_the_call_naming_the_decorator(tmp_path):
    mod = load_module(tmp_path / "wrapped.py", WRAPPED)
    with pytest.raises(pyad.PyadSyntaxError, match=re.escape(
            "cannot compile `helper`, called here: helper is wrapped by the decorator "
            "`@log_calls`")) as info:
        pyad.jit_grad(mod.calls_helper)(1.0)
    assert (info.value.line, info.value.col) == (28, 11)


def test_a_gradient_function_is_not_compiled_as_the_function(tmp_path):
    mod = load_module(tmp_path / "wrapped.py", WRAPPED)
    with pytest.raises(pyad.PyadSyntaxError) as info:
        pyad.jit_grad(pyad.grad(mod.calls_helper))(1.0)
    check_golden("errors/wrapper_of_function.txt", message(info.value, tmp_path))


def test_the_decorator_applied_to_the_compiled_function_keeps_its_effect(tmp_path):
    mod = load_module(tmp_path / "wrapped.py", WRAPPED)
    assert mod.h(2.0) == 6.0 and mod.CALLS == [(2.0,)]


def test_a_function_from_an_exec_string_says_where_its_source_went():
    namespace: dict = {"pyad": pyad}
    exec(compile("def f(x):\n    return x * 2.0\n", "<string>", "exec"), namespace)
    with pytest.raises(pyad.PyadSyntaxError, match="cannot read the source of f") as info:
        pyad.jit_grad(namespace["f"])(1.0)
    check_golden("errors/source_of_exec.txt", str(info.value) + "\n")


def test_generated_code_kept_in_linecache_compiles():
    text = "def f(x):\n    return x * x * 2.0\n"
    name = "<generated model 1>"
    linecache.cache[name] = (len(text), None, text.splitlines(keepends=True), name)
    try:
        namespace: dict = {}
        exec(compile(text, name, "exec"), namespace)
        f = pyad.jit_grad(namespace["f"])
        assert f(1.5) == 4.5 and f.grad(1.5) in ((6.0,), 6.0)
        # the cached text is checked like a file's
        linecache.cache[name] = (len(text), None, [text.replace("2.0", "3.0")], name)
        with pytest.raises(pyad.PyadSyntaxError, match=re.escape(
                "the source of f changed after it was defined")):
            f(2)
    finally:
        del linecache.cache[name]


QUICKENED = """\
def poly(x):
    y = 0.0
    for k in range(4):
        y = y * x + k
    return y


def apply(fn, x):
    return fn(x)


pair = (lambda x: x * 2.0, lambda x: x + 1.0)
"""


def test_functions_python_already_ran_and_lambdas_are_read_as_written(tmp_path):
    """Python specializes the bytecode of code it runs often; the check compares the code
    as compiled, and tells apart two lambdas of one line."""
    from pyad.frontend.recover import function_source
    mod = load_module(tmp_path / "quickened.py", QUICKENED)
    for _ in range(2000):
        mod.poly(1.5)
    f = pyad.jit_grad(mod.poly)
    assert f(1.5) == mod.poly(1.5)
    for lam in mod.pair:
        found = function_source(lam)
        assert (found.start, found.lines) == (12, [QUICKENED.splitlines(keepends=True)[11]])


def test_a_function_whose_file_was_deleted_says_so(tmp_path):
    path = tmp_path / "gone.py"
    f = pyad.jit_grad(load_module(path, MODEL).f)
    path.unlink()
    linecache.checkcache(str(path))
    with pytest.raises(pyad.PyadSyntaxError, match=re.escape(
            f"cannot read the source of f: its file {path} cannot be read (deleted, or a "
            "module shipped without source)")):
        f(1.5)
