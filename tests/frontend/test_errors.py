"""Golden error messages: file:line:col, the source line, carets under the construct, a hint.
Regenerate with PYAD_UPDATE_GOLDEN=1."""
from __future__ import annotations

import pytest

import pyad
from pyad.frontend import lower as frontend

from .. import errors_corpus
from ..golden_files import check_golden

CASES = [name for name in vars(errors_corpus) if not name.startswith("_")
         and callable(getattr(errors_corpus, name)) and name != "math"]


@pytest.mark.parametrize("name", CASES)
def test_error_message(name):
    fn = pyad.jit_grad(getattr(errors_corpus, name))
    with pytest.raises(pyad.PyadError) as info:
        fn(1.5)
    text = str(info.value).replace(errors_corpus.__file__, "errors_corpus.py") + "\n"
    assert text.startswith("errors_corpus.py:")
    check_golden(f"errors/{name}.txt", text)


def test_errors_are_raised_for_grad_and_pullback_too():
    fn = pyad.jit_grad(errors_corpus.list_comp)
    with pytest.raises(pyad.PyadSyntaxError, match="set comprehension"):
        fn.grad(1.0)
    with pytest.raises(pyad.PyadSyntaxError, match="set comprehension"):
        fn.pullback(1.0)


def test_internal_errors_are_reported_as_such(monkeypatch):
    def broken(self, *args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(frontend.Lowering, "run", broken)
    fn = pyad.jit_grad(errors_corpus.no_return, cache=False)  # compiled here, not loaded
    with pytest.raises(pyad.PyadInternalError, match="internal compiler error: KeyError"):
        fn(1.0)


def test_not_a_function():
    with pytest.raises(TypeError, match="expects a Python function"):
        pyad.jit_grad(len)
