"""Frontend, `np.linalg`: `solve`, `inv`, `det`, `slogdet`, `cholesky`, `eigh`, `eigvalsh`,
each one row of the op table (pyad/ir/linalg_rows.py) on a 2-D float matrix (int and bool
arrays are converted). `slogdet` and `eigh` return a tuple of views of the row's packed
result. The rest of `np.linalg` is refused with a located error naming what to write;
`np.linalg.norm` is in numpyfuncs.py."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.nodes import F64, I64, Var, elem_type, ndim_of

#: np.linalg functions pyad does not have -> what to write instead
REFUSED = {
    "eig": "use np.linalg.eigh for a symmetric matrix (general eigenproblems have complex "
           "results, which pyad does not have)",
    "eigvals": "use np.linalg.eigh or eigvalsh for a symmetric matrix",
    "svd": "for a symmetric positive semi-definite matrix use np.linalg.eigh",
    "qr": "solve least-squares problems with np.linalg.solve(A.T @ A, A.T @ b)",
    "lstsq": "write np.linalg.solve(A.T @ A, A.T @ b) (the normal equations)",
    "pinv": "write np.linalg.solve(A.T @ A, A.T) for a matrix of full column rank",
    "matrix_power": "write the products with @ (or a loop)",
    "matrix_rank": "it is piecewise constant: compute it outside the compiled function",
    "cond": "write it from np.linalg.norm and np.linalg.inv",
    "tensorsolve": "reshape to a matrix and use np.linalg.solve",
    "tensorinv": "reshape to a matrix and use np.linalg.inv",
    "multi_dot": "write the products with @",
}


class LinearAlgebra:
    """See the module docstring; one per function body."""

    NAMES = ("solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def call(self, name: str, node: ast.Call, args: list, kw: dict):
        if name in REFUSED:
            raise self.ctx.error(node.func, f"np.linalg.{name} is not supported",
                                 hint=REFUSED[name])
        if name not in self.NAMES:
            raise self.ctx.error(node.func, f"unsupported numpy function `np.linalg.{name}`",
                                 hint="pyad has np.linalg.solve, inv, det, slogdet, cholesky, "
                                 "eigh, eigvalsh and norm (docs/arrays.md)")
        extra = set(kw) - ({"UPLO"} if name in ("eigh", "eigvalsh") else set())
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        if "UPLO" in kw and self.lw.arrayops.constant_arg(
                kw["UPLO"], (str,), "UPLO must be a constant string") != "L":
            raise self.ctx.error(kw["UPLO"], "only UPLO='L' (the default) is supported",
                                 hint="pass A.T to read the upper triangle")
        n = 2 if name == "solve" else 1
        if len(args) != n:
            raise self.ctx.error(node, f"np.linalg.{name} takes {n} argument"
                                 f"{'s' if n > 1 else ''}", cls=PyadTypeError)
        A = self._float(args[0], node.args[0], "a 2-D matrix", (2,))
        b = self.ctx.b
        if name == "solve":
            return b.emit("solve", A, self._float(args[1], node.args[1],
                                                  "a 1-D or 2-D array", (1, 2)))
        if name == "slogdet":
            P = b.emit("slogdet", A)
            return tuple(b.emit("load", P, b.const(k, I64)) for k in (0, 1))
        if name in ("eigh", "eigvalsh"):
            P = b.emit("eigh", A)
            zero, one = b.const(0, I64), b.const(1, I64)
            w = b.emit("row", P, zero)
            if name == "eigvalsh":
                return w
            end = b.add(b.emit("dim", A, attrs=(0,), type=I64), one)
            return w, b.emit("slice", P, one, end)
        return b.emit(name, A)

    def _float(self, v, node: ast.expr, what: str, ndims: tuple) -> Var:
        """`v` as an f64 array of one of `ndims` dimensions (ints and bools converted)."""
        ops = self.lw.arrayops
        a = self.lw.arrays.array(v, node)
        if ndim_of(a.type) not in ndims:
            raise self.ctx.error(node, f"expected {what} here, not a {ndim_of(a.type)}-D "
                                 "array (pyad has no stacks of matrices)", cls=PyadTypeError)
        if elem_type(a.type) != F64:
            a = ops.materialize(ops.elementwise(lambda x: self.ctx.convert(x, F64), [a], node))
        return a
