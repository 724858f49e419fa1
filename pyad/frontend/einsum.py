"""Frontend, `np.einsum` with explicit subscripts ("krc,nkc->nkr"): an elementwise `Lazy`
over the output's letters whose element is the sum, over the other letters, of the
operands' product (one reduction loop nest per element, in the letters' order of first
appearance). Its gradient comes from the loads, like any reduction. Sizes of a letter that
appears several times are checked at run time (ValueError)."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import reduce_each
from ..ir.nodes import F64, I64, Var, elem_type, ndim_of
from .arrayops import Lazy


class Einsum:
    """np.einsum; one per function body."""

    NAMES = ("einsum",)

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def create(self, name: str, node: ast.Call) -> Lazy | Var:
        spec = node.args[0] if node.args else None
        if node.keywords or not (isinstance(spec, ast.Constant) and isinstance(spec.value, str)):
            raise self.ctx.error(node, "np.einsum takes a constant subscripts string and "
                                 "the operands", cls=PyadTypeError)
        text = spec.value.replace(" ", "")
        if "->" not in text or "." in text:
            raise self.ctx.error(spec, "np.einsum needs explicit output subscripts "
                                 "(\"ij,jk->ik\") and no ellipsis here")
        ins, out = text.split("->")
        terms = ins.split(",")
        arrays = self.lw.arrays
        ops = [arrays.array(self.lw.exprs.expr(a), a) for a in node.args[1:]]
        if len(terms) != len(ops):
            raise self.ctx.error(node, f"np.einsum: {len(terms)} subscripts for {len(ops)} "
                                 "operands", cls=PyadTypeError)
        for t, a, arg in zip(terms, ops, node.args[1:]):
            if len(t) != ndim_of(a.type) or not t.isalpha() or len(set(t)) != len(t):
                raise self.ctx.error(arg, f"np.einsum: subscripts {t!r} do not fit a "
                                     f"{ndim_of(a.type)}-D operand (repeated letters are "
                                     "not supported)", cls=PyadTypeError)
        letters = list(dict.fromkeys("".join(terms)))
        if set(out) - set(letters) or len(set(out)) != len(out) or len(out) > 3:
            raise self.ctx.error(spec, f"np.einsum: bad output subscripts {out!r}")
        b = self.ctx.b
        size: dict[str, Var] = {}
        for t, a in zip(terms, ops):
            for letter, d in zip(t, arrays.dims(a)):
                if letter in size:
                    b.emit("raise_if", b.ne(d, size[letter]), attrs=(
                        "ValueError", f"np.einsum: operands disagree on the size of {letter}"))
                else:
                    size[letter] = d
        summed = [x for x in letters if x not in out]
        elem = F64 if any(elem_type(a.type) == F64 for a in ops) else I64

        def element(at: dict[str, Var]) -> Var:
            bb = self.ctx.b
            prod = None
            for t, a in zip(terms, ops):
                v = self.ctx.convert(bb.emit("load", a, *(at[x] for x in t)), elem)
                prod = v if prod is None else bb.mul(prod, v)
            return prod

        def gen(idx: list[Var]) -> Var:
            at = dict(zip(out, idx))
            if not summed:
                return element(at)

            def body(bb, inner, acc):
                with self.ctx.emitting(bb):
                    return [bb.add(acc[0], element({**at, **dict(zip(summed, inner))}))]
            return reduce_each(self.ctx.b, [size[x] for x in summed],
                               [self.ctx.b.const(0, elem)], body)[0]
        if not out:
            return gen([])
        return Lazy(elem, [size[x] for x in out], gen)
