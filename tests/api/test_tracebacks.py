"""What the user sees when a call fails: the error with the user's frames, not pyad's
(pyad/api/boundary.py); PYAD_TRACEBACK=1 shows them; pyad bugs keep them."""
from __future__ import annotations

import re
import traceback

import pytest

import pyad
from pyad.frontend import lower as frontend

from ..modules import load_module

SOURCE = '''\
import pyad


def broken(x):
    return x + {1}


def divide(a, b):
    c = a + 1.0
    return c / b


def twice(n):
    return n * 2.0
'''


@pytest.fixture
def mod(tmp_path):
    return load_module(tmp_path / "tbmod.py", SOURCE)


def pyad_frames(exc: BaseException) -> list[str]:
    """The frames of pyad's own files in `exc`'s traceback."""
    return [f"{fs.filename}:{fs.lineno}" for fs in traceback.extract_tb(exc.__traceback__)
            if "/pyad/" in fs.filename or "/codegen/" in fs.filename]


def shown(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


CALLS = {
    "call": lambda f, *a: f(*a),
    "grad": lambda f, *a: f.grad(*a),
    "value_and_grad": lambda f, *a: f.value_and_grad(*a),
    "pullback": lambda f, *a: f.pullback(*a),
    "ir": lambda f, *a: f.ir(*a),
    "pyad.grad": lambda f, *a: pyad.grad(f.__wrapped__)(*a),
    "pyad.value_and_grad": lambda f, *a: pyad.value_and_grad(f.__wrapped__)(*a),
    "pyad.vjp": lambda f, *a: pyad.vjp(f.__wrapped__, *a),
}


@pytest.mark.parametrize("entry", CALLS)
def test_a_compile_error_shows_the_users_code_and_one_frame_of_pyad(mod, entry):
    with pytest.raises(pyad.PyadSyntaxError) as info:
        CALLS[entry](pyad.jit_grad(mod.broken), 1.5)
    assert len(pyad_frames(info.value)) == 1, shown(info.value)
    text = shown(info.value)
    assert 'return x + {1}' in text and "tbmod.py:5:16: error" in text
    assert "frontend" not in text and "During handling" not in text
    assert len(text.splitlines()) < 15, text


def _held(name: str):
    """`f.<name>` taken before the first call and kept (as scipy.optimize keeps it): one call
    that works (the native kernel is then behind it), then the call with `args`."""
    def call(f, *args):
        method = getattr(f, name)
        method(1.0, 2.0)
        return method(*args)
    return call


RUNTIME_CALLS = {**{k: CALLS[k] for k in ("call", "grad", "pyad.grad")},
                 "held grad": _held("grad"), "held value_and_grad": _held("value_and_grad")}


@pytest.mark.parametrize("entry", RUNTIME_CALLS)
def test_a_runtime_error_names_the_users_line_without_pyads_frames(mod, entry):
    with pytest.raises(ZeroDivisionError, match=r"\(line 10 of tbmod.py\)") as info:
        RUNTIME_CALLS[entry](pyad.jit_grad(mod.divide), 1.0, 0.0)
    assert len(pyad_frames(info.value)) <= 1, shown(info.value)


def test_a_bad_argument_is_reported_without_pyads_frames(mod):
    f = pyad.jit_grad(mod.divide)
    with pytest.raises(TypeError, match="missing 1 required positional argument") as info:
        f(1.0)
    assert len(pyad_frames(info.value)) == 1, shown(info.value)


def test_pyad_traceback_shows_the_internal_frames(mod, monkeypatch):
    monkeypatch.setenv("PYAD_TRACEBACK", "1")
    with pytest.raises(pyad.PyadSyntaxError) as info:
        pyad.jit_grad(mod.broken)(1.5)
    frames = pyad_frames(info.value)
    assert any("/pyad/frontend/" in f for f in frames), frames


def test_internal_errors_keep_their_frames(mod, monkeypatch):
    def broken(self, *args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(frontend.Lowering, "run", broken)
    with pytest.raises(pyad.PyadInternalError) as info:
        pyad.jit_grad(mod.divide, cache=False)(1.0, 2.0)  # compiled here, not loaded
    assert any("/pyad/api/jit.py" in f for f in pyad_frames(info.value))
    cause = info.value.__cause__
    assert isinstance(cause, KeyError)
    assert any("test_tracebacks.py" in fs.filename
               for fs in traceback.extract_tb(cause.__traceback__))


@pytest.mark.parametrize("entry", ["grad", "value_and_grad"])
def test_a_gradient_with_only_int_arguments_has_nothing_to_differentiate(mod, entry):
    f = pyad.jit_grad(mod.twice)
    assert f(2) == 4.0
    with pytest.raises(TypeError, match=r"^twice: nothing to differentiate: no argument is a "
                       r"float or a float array \(ints and bools have no gradient\); pass "
                       r"floats, e.g. 2.0 instead of 2"):
        CALLS[entry](f, 2)
    assert CALLS[entry](f, 2.0) in (2.0, (4.0, 2.0), (2.0,), (4.0, (2.0,)))


def test_an_int_argument_asked_for_by_argnums_has_nothing_to_differentiate(mod):
    with pytest.raises(TypeError, match=re.escape(
            "twice: nothing to differentiate: no argument is a float or a float array")):
        pyad.grad(mod.twice, argnums=0)(2)
