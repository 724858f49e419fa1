"""NumPy functions take a Python list wherever they take an array (pyad/frontend/arrays.py,
`numpy_call`): a list argument of the compiled function, a list display and a comprehension
(a list of run-time length) are made arrays first, in every argument position that is an
array, and stay lists where the argument is a shape or a count (`np.reshape(a, [3, 1])`,
`np.zeros([2, n])`). These calls were internal compiler errors ('PyList' object has no
attribute 'type'). Values are checked against NumPy, gradients (the list's floats are
leaves) against central finite differences, the dot-product test, the interpreter and the
pullback (tests/gradients.py)."""
import numpy as np
import pytest

from ..gradients import check_against_python
from ..modules import load_module

EXPRESSIONS = [
    "np.mean(xs)", "np.std(xs)", "np.sum(xs) * 2.0", "np.max(xs)", "np.var(xs)",
    "np.prod(xs)", "np.median(xs)", "np.sum(np.exp(xs))", "np.linalg.norm(xs)",
    "np.sum(np.cumsum(xs) ** 2)", "np.dot(xs, xs)", "np.sum(np.sort(xs) * np.arange(3.0))",
    "np.percentile(xs, 30.0)", "np.polyval(xs, 0.5)",
    "np.sum(np.where(np.array(xs) > 1.5, xs, [0.0, 0.5, 0.25]))",
    "np.sum(np.maximum(xs, 2.0) ** 2)", "np.sum(np.clip(xs, 1.5, 3.0) ** 2)",
    "np.sum(np.concatenate([xs, xs]) * np.arange(6.0))",
    "np.sum(np.reshape(xs, [3, 1]) * np.ones((3, 2)))",
    "np.sum(np.zeros([2, len(xs)]) + np.outer([1.0, 2.0], xs))",
    "np.sum(np.diff(xs) ** 2)", "np.sum(np.take(xs, [0, 2]) ** 2)",
    "np.mean([x * x for x in xs])", "np.std([xs[0], xs[1] * 2.0, 3.0])",
    "np.sum(np.tanh(xs) * [1.0, -1.0, 0.5])",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_a_list_where_numpy_takes_an_array(tmp_path, expr):
    src = f"import numpy as np\n\n\ndef f(xs):\n    return {expr}\n"
    f = load_module(tmp_path / "listops.py", src).f
    check_against_python(f, [1.0, 2.5, 4.0])
