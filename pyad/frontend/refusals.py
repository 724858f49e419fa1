"""NumPy and math functions pyad does not have, with what to write instead:
the hints of the located errors that refuse them (arrayops.py, functions.py). The refused
parts of np.linalg are in linalg.py."""
from __future__ import annotations

#: NumPy functions pyad does not have -> what to write instead
INSTEAD = {
    "unique": "its length depends on the values: sort (np.sort) and compare neighbours",
    "histogram": "np.searchsorted(edges, x) gives each element's bin",
    "correlate": "np.convolve(a, v[::-1], mode) is the correlation of real arrays",
    "trapz": "np.trapezoid (NumPy 2's name)",
    "tolist": "iterate over the array (for v in a) or index it",
    "bincount": "np.add.at(counts, x, 1) into counts = np.zeros(n, dtype=int)",
    "append": "np.append copies the whole array each time: allocate once (y = np.zeros(n)) "
              "and assign y[i] = v, or collect a list and call np.array(list) at the end",
    "insert": "np.concatenate((x[:i], [v], x[i:])) (np.concatenate(([v], x)) at the front)",
    "vectorize": "call the function on the whole array (NumPy's operators and functions "
                 "work element by element), or loop over the elements",
    "apply_along_axis": "write the function of a row and loop over the rows, or use the "
                        "axis= argument of the reduction",
    "piecewise": "np.select([c1, c2], [f1(x), f2(x)], default) or nested np.where (each "
                 "function of the whole array)",
}

#: other functions (by __name__) -> what to write instead
FUNCTIONS_INSTEAD = {
    "combinations": "write the pairs as nested loops: for i in range(n): for j in range(i + 1, "
                    "n)",
    "product": "write nested loops (for a in xs: for b in ys:)",
    "reduce": "write the loop: acc = x[0]; for v in x[1:]: acc = f(acc, v) (or np.prod, "
              "np.sum, ... of the array)",
    "isinstance": "types are fixed when compiling: branch on the value instead (or write "
                  "one function per type)",
    "zip": "zip works where it is iterated (`for a, b in zip(x, y):`, a comprehension) "
           "and in dict(zip(names, values)); a zip kept in a variable is not (index the "
           "array instead: `{'a': theta[0], 'b': theta[1]}`)",
    "enumerate": "enumerate works where it is iterated: `for i, v in enumerate(xs):` or a "
                 "comprehension",
}

#: random numbers (np.random.*, random.*) -> what to write instead
RANDOM_INSTEAD = ("draw the random numbers outside and pass them in as an argument (eps = "
                  "rng.normal(size=n) before the call): the gradient is then the one for those "
                  "draws, as in JAX, where keys are passed in")

#: array attributes supported only in some places: (message, what to write)
ATTRIBUTES_INSTEAD = {
    "dtype": ("`.dtype` is supported only as a dtype argument",
              "write np.zeros(n, dtype=a.dtype) or np.finfo(a.dtype); the element type is "
              "fixed when compiling (a signature per dtype): write one function per type"),
}
