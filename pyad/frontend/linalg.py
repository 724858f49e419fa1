"""Frontend, `np.linalg`: `solve`, `inv`, `det`, `slogdet`, `cholesky`, `eigh`, `eigvalsh`,
`svd`, `svdvals`, `qr`, each one row of the op table (pyad/ir/linalg_rows.py) on a 2-D float
matrix (int and bool arrays are converted), or on each matrix of a 3-D stack (NumPy's
leading axis). `slogdet`, `eigh` and `svd` return a tuple of views of the row's packed
result (`svd`'s factors are the reduced ones: NumPy's default full_matrices=True is taken
for a square matrix only, ValueError otherwise). `qr`'s modes are 'reduced' (the default),
'r' and 'complete' (the same factors as 'reduced' when m <= n, ValueError otherwise). `pinv`, `lstsq`, `matrix_rank` and `cond`
are written in prelude.py, `np.linalg.norm` is in norms.py; the rest of `np.linalg` is
refused with a located error naming what to write."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range
from ..ir.nodes import BOOL, F64, I64, Var, elem_type, is_array, ndim_of
from .context import Lazy

#: np.linalg functions pyad does not have -> what to write instead
REFUSED = {
    "eig": "use np.linalg.eigh for a symmetric matrix (general eigenproblems have complex "
           "results, which pyad does not have)",
    "eigvals": "use np.linalg.eigh or eigvalsh for a symmetric matrix",
    "tensorsolve": "reshape to a matrix and use np.linalg.solve",
    "tensorinv": "reshape to a matrix and use np.linalg.inv",
    "multi_dot": "write the products with @",
}


class LinearAlgebra:
    """See the module docstring; one per function body."""

    NAMES = ("solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svd",
             "svdvals", "qr")
    KEYWORDS = {"eigh": {"UPLO"}, "eigvalsh": {"UPLO"},
                "svd": {"full_matrices", "compute_uv", "hermitian"}, "qr": {"mode"}}

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
                                 "eigh, eigvalsh, svd, svdvals, qr and norm (docs/arrays.md)")
        extra = set(kw) - self.KEYWORDS.get(name, set())
        if extra:
            raise self.ctx.error(node, f"unsupported keyword argument `{extra.pop()}`")
        if name == "svd":
            flags = [self.lw.arrayops.constant_arg(kw[k], (bool,), f"{k} must be True or "
                                                   "False") if k in kw else k != "hermitian"
                     for k in ("full_matrices", "compute_uv", "hermitian")]
            name = "svd_full" if flags[0] and flags[1] else "svd" if flags[1] else "svdvals"
        if name == "qr":
            mode = self.lw.arrayops.constant_arg(kw["mode"], (str,), "mode must be a constant "
                                                 "string") if "mode" in kw else "reduced"
            if mode not in ("reduced", "r", "complete"):
                raise self.ctx.error(kw["mode"], f"np.linalg.qr's mode {mode!r} is not "
                                     "supported", hint="use 'reduced', 'r' or 'complete'")
            name = {"reduced": "qr", "r": "qr_r", "complete": "qr_full"}[mode]
        upper = "UPLO" in kw and self.lw.arrayops.constant_arg(
            kw["UPLO"], (str,), "UPLO must be a constant string") == "U"
        if "UPLO" in kw and not upper and self.lw.arrayops.constant_arg(
                kw["UPLO"], (str,), "UPLO must be a constant string") != "L":
            raise self.ctx.error(kw["UPLO"], "UPLO must be 'L' or 'U'")
        n = 2 if name == "solve" else 1
        if len(args) != n:
            raise self.ctx.error(node, f"np.linalg.{name} takes {n} argument"
                                 f"{'s' if n > 1 else ''}", cls=PyadTypeError)
        A = self._float(args[0], node.args[0], "a 2-D matrix or a 3-D stack of them", (2, 3))
        if upper:   # the upper triangle of A is the lower one of A.T
            A = self.ctx.b.emit("transpose", A) if ndim_of(A.type) == 2 else self._swap(A)
        B = None
        if name == "solve":
            B = self._float(args[1], node.args[1], "a 1-D, 2-D or 3-D array", (1, 2, 3))
            if ndim_of(A.type) == 2 and ndim_of(B.type) < 3:
                return self.ctx.b.emit("solve", A, B)
        elif ndim_of(A.type) == 2:
            return self._one(name, A, None)
        return self._stack(name, A, B, node)

    def _one(self, name: str, A: Var, B: Var | None):
        """np.linalg.<name> of one matrix `A` (and right-hand side `B`)."""
        b = self.ctx.b
        if name == "solve":
            return b.emit("solve", A, B)
        if name == "slogdet":
            P = b.emit("slogdet", A)
            return tuple(b.emit("load", P, b.const(k, I64)) for k in (0, 1))
        if name in ("svd", "svd_full", "svdvals"):
            P = b.emit("svd", A)
            s = b.emit("row", P, b.const(0, I64))
            if name == "svdvals":
                return s
            m, n = (b.emit("dim", A, attrs=(k,), type=I64) for k in (0, 1))
            if name == "svd_full":   # NumPy's default: U m x m and Vh n x n
                b.emit("raise_if", b.ne(m, n), attrs=(
                    "ValueError", "np.linalg.svd of a non-square matrix needs "
                    "full_matrices=False in pyad (the reduced factors)"))
            one = b.const(1, I64)
            top = b.add(m, one)
            return b.emit("slice", P, one, top), s, b.emit("transpose", b.emit(
                "slice", P, top, b.add(top, n)))
        if name in ("qr", "qr_r", "qr_full"):
            return self._qr(name, A)
        if name in ("eigh", "eigvalsh"):
            P = b.emit("eigh", A)
            zero, one = b.const(0, I64), b.const(1, I64)
            w = b.emit("row", P, zero)
            if name == "eigvalsh":
                return w
            end = b.add(b.emit("dim", A, attrs=(0,), type=I64), one)
            return w, b.emit("slice", P, one, end)
        return b.emit(name, A)

    def _qr(self, name: str, A: Var):
        """Q and R of one matrix (R alone for mode='r'), views of the packed [Q; R]."""
        b = self.ctx.b
        P = b.emit("qr", A)
        m, n = (b.emit("dim", A, attrs=(k,), type=I64) for k in (0, 1))
        k, zero, one = b.min(m, n), b.const(0, I64), b.const(1, I64)
        R = b.emit("slice", P, m, b.add(m, k))
        if name == "qr_r":
            return R
        if name == "qr_full":    # NumPy's complete Q is m x m: the reduced one when m <= n
            b.emit("raise_if", b.gt(m, n), attrs=(
                "ValueError", "np.linalg.qr(mode='complete') of a matrix with more rows than "
                "columns needs the full Q, which pyad does not compute: use mode='reduced'"))
        return b.emit("view", P, zero, m, one, zero, k, one, attrs=("ss",)), R

    def _stack(self, name: str, A: Var, B: Var | None, node: ast.AST):
        """np.linalg.<name> of a stack of matrices (NumPy's leading axis): the function of
        each matrix, its results stacked. For solve, a 1-D `B` is one vector and a 2-D `B`
        one matrix for every matrix of the stack (NumPy 2's rule), a 3-D `B` a stack of
        right-hand sides; a stack of size 1 (or a 2-D `A`) broadcasts."""
        ctx, arrays = self.ctx, self.lw.arrays
        bl = ctx.b
        one, zero = bl.const(1, I64), bl.const(0, I64)
        stacks = [arrays.dims(x)[0] for x in (A, B) if x is not None and ndim_of(x.type) == 3]
        s = stacks[0]
        if len(stacks) == 2:
            m = stacks[1]
            bad = bl.select(bl.ne(s, m), bl.select(bl.ne(s, one), bl.ne(m, one),
                                                   bl.const(False, BOOL)), bl.const(False, BOOL))
            bl.emit("raise_if", bad, attrs=("ValueError", "np.linalg.solve: the stack sizes "
                                            "could not be broadcast"))
            s = bl.select(bl.eq(s, one), m, s)
        n = arrays.dims(A)[-1]
        m = arrays.dims(A)[-2]
        k = bl.min(m, n)
        self._check_shapes(name, m, n, B)
        if name == "svdvals":
            shapes = [[s, k]]
        elif name in ("svd", "svd_full"):
            shapes = [[s, m, k], [s, k], [s, k, n]]
        elif name in ("qr", "qr_full"):
            shapes = [[s, m, k], [s, k, n]]
        elif name == "qr_r":
            shapes = [[s, k, n]]
        elif name in ("det",):
            shapes = [[s]]
        elif name == "slogdet":
            shapes = [[s], [s]]
        elif name == "eigvalsh":
            shapes = [[s, n]]
        elif name == "eigh":
            shapes = [[s, n], [s, n, n]]
        elif name == "solve":
            shapes = [[s] + arrays.dims(B)[-2 if ndim_of(B.type) > 1 else -1:]]
        else:
            shapes = [[s, n, n]]
        outs = [arrays.new_array(F64, d) for d in shapes]

        def piece(x: Var | None, i: Var) -> Var | None:
            if x is None or ndim_of(x.type) != 3:
                return x
            return ctx.b.emit("row", x, ctx.b.select(ctx.b.eq(arrays.dims(x)[0], one), zero, i))

        def body(bb, i, _):
            with ctx.emitting(bb):
                r = self._one(name, piece(A, i), piece(B, i))
                for out, v in zip(outs, r if isinstance(r, tuple) else (r,)):
                    if is_array(v.type):
                        self.lw.arrayops.assign_into(ctx.b.emit("row", out, i), v, node)
                    else:
                        ctx.b.emit("store", out, i, v)
            return []
        for_range(bl, s, [], body)
        return tuple(outs) if len(outs) > 1 else outs[0]

    def _check_shapes(self, name: str, m: Var, n: Var, B: Var | None) -> None:
        """A stack's shape checks (each matrix's op repeats them), before the loop over the
        stack, which does not run when it is empty (NumPy checks then too)."""
        bl = self.ctx.b
        if not name.startswith(("svd", "qr")):
            bl.emit("raise_if", bl.ne(m, n), attrs=(
                "LinAlgError", "Last 2 dimensions of the array must be square"))
        if name == "solve":
            rows = self.lw.arrays.dims(B)[-2 if ndim_of(B.type) > 1 else -1]
            bl.emit("raise_if", bl.ne(rows, n), attrs=(
                "ValueError", "solve: the first dimension of b does not match the order of A"))

    def _swap(self, A: Var) -> Var:
        """A stack of matrices with each matrix transposed (a copy)."""
        ops = self.lw.arrayops
        src = ops.lift(A)
        return ops.materialize(Lazy(src.elem, [src.dims[0], src.dims[2], src.dims[1]],
                                    lambda idx: src.gen([idx[0], idx[2], idx[1]])))

    def _float(self, v, node: ast.expr, what: str, ndims: tuple) -> Var:
        """`v` as an f64 array of one of `ndims` dimensions (ints and bools converted)."""
        ops = self.lw.arrayops
        a = self.lw.arrays.array(v, node)
        if ndim_of(a.type) not in ndims:
            raise self.ctx.error(node, f"expected {what} here, not a {ndim_of(a.type)}-D "
                                 "array", cls=PyadTypeError)
        if elem_type(a.type) != F64:
            a = ops.materialize(ops.elementwise(lambda x: self.ctx.convert(x, F64), [a], node))
        return a
