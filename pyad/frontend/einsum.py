"""Frontend, `np.einsum` with explicit subscripts ("krc,nkc->nkr") or implicit ones ("ij,jk":
the letters used once, sorted; a letter repeated in one operand reads its diagonal, "ii"
being the trace): an elementwise `Lazy`
over the output's letters whose element is the sum, over the other letters, of the
operands' product (one reduction loop nest per element, in the letters' order of first
appearance). Its gradient comes from the loads, like any reduction. Sizes of a letter that
appears several times are checked at run time (ValueError). An ellipsis ("...ij,...jk->...ik")
stands for an operand's remaining axes, aligned from the right across operands as NumPy
does; they become letters of their own (equal sizes, checked like any letter: NumPy would
also broadcast an axis of size 1). `np.tensordot` is the einsum of its axes. `optimize=` is
accepted and ignored (pyad contracts in its own order).

A contraction of two float64 operands that is a matrix product ("ij,jk->ik", "ij,kj->ki",
"ij,j->i") runs the runtime's matrix product (the `matmul` row, differentiated at the array
level: its adjoint is two more products), and a batch of them over a letter leading every
axis list ("bij,bjk->bik") a product per batch index; see `Einsum.products` for when. Three or more
operands are contracted two at a time where that takes fewer multiplications
(`Einsum.pairwise`)."""
from __future__ import annotations

import ast

from ..errors import PyadTypeError
from ..ir.loops import for_range, reduce_each
from ..ir.nodes import F64, I64, Var, elem_type, ndim_of
from .context import Lazy


#: the length each letter is taken to have when pairwise contraction is weighed (Einsum.pairwise)
PAIR_SIZE = 16


class Einsum:
    """np.einsum; one per function body."""

    NAMES = ("einsum", "tensordot")

    def __init__(self, lw) -> None:
        self.lw = lw
        self.ctx = lw.ctx

    def create(self, name: str, node: ast.Call) -> Lazy | Var:
        if name == "tensordot":
            return self.tensordot(node)
        spec = node.args[0] if node.args else None
        keywords = [k for k in node.keywords if k.arg != "optimize"]   # the order: pyad's
        if keywords:
            raise self.ctx.error(keywords[0].value, f"np.einsum's keyword `{keywords[0].arg}` "
                                 "is not supported", hint="pass the subscripts and operands "
                                 "(optimize= is accepted and ignored)")
        if not (isinstance(spec, ast.Constant) and isinstance(spec.value, str)):
            raise self.ctx.error(node, "np.einsum takes a constant subscripts string and "
                                 "the operands", cls=PyadTypeError)
        text = spec.value.replace(" ", "")
        arrays = self.lw.arrays
        ops = [arrays.array(self.lw.exprs.expr(a), a) for a in node.args[1:]]
        ins, arrow, out = text.partition("->")
        terms = ins.split(",")
        if len(terms) == len(ops) and "." in text:
            terms, out = self.ellipsis(terms, out if arrow else None, ops, spec)
            arrow = "->"
        if not arrow:   # implicit output: the letters used once, in alphabetical order
            out = "".join(sorted(x for x in set(text) - {","} if text.count(x) == 1))
        if len(terms) != len(ops):
            raise self.ctx.error(node, f"np.einsum: {len(terms)} subscripts for {len(ops)} "
                                 "operands", cls=PyadTypeError)
        for t, a, arg in zip(terms, ops, node.args[1:]):
            if len(t) != ndim_of(a.type) or not t.isalpha():
                raise self.ctx.error(arg, f"np.einsum: subscripts {t!r} do not fit a "
                                     f"{ndim_of(a.type)}-D operand", cls=PyadTypeError)
        return self.contract(terms, out, ops, spec)

    def ellipsis(self, terms: list[str], out: str | None, ops: list[Var],
                 spec: ast.AST) -> tuple[list[str], str]:
        """`terms` and `out` (None: implicit) with each "..." replaced by letters of its
        own for the operand's remaining axes, aligned from the right (NumPy's rule); an
        implicit output puts them first, then the letters used once, sorted."""
        unused = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                  if c not in "".join(terms) + (out or "")]
        widths = []
        for t, a in zip(terms, ops):
            explicit = len(t.replace("...", ""))
            if t.count("...") > 1 or t.replace("...", "").count(".") or \
                    "..." in t and explicit > ndim_of(a.type):
                raise self.ctx.error(spec, f"np.einsum: subscripts {t!r} do not fit a "
                                     f"{ndim_of(a.type)}-D operand", cls=PyadTypeError)
            widths.append(ndim_of(a.type) - explicit if "..." in t else 0)
        width = max(widths)
        dots = "".join(unused[:width])
        terms = [t.replace("...", dots[width - w:]) for t, w in zip(terms, widths)]
        if out is None:
            text = ",".join(terms)
            return terms, dots + "".join(sorted(x for x in set(text) - {","} - set(dots)
                                                if text.count(x) == 1))
        if out.count("...") > 1 or out.replace("...", "").count(".") or \
                width and "..." not in out:
            raise self.ctx.error(spec, f"np.einsum: bad output subscripts {out!r}" + (
                " (the axes the ellipsis stands for need one in the output too, as in "
                "NumPy)" if "..." not in out else ""), cls=PyadTypeError)
        return terms, out.replace("...", dots)

    def tensordot(self, node: ast.Call) -> Lazy | Var:
        """np.tensordot(a, b, axes=2): the sum over the last `axes` axes of a and the first
        of b, or over the axes (axes_a, axes_b) given as two constant lists; the einsum of
        those letters."""
        kw = {k.arg: k.value for k in node.keywords}
        if len(node.args) not in (2, 3) or set(kw) - {"axes"} or \
                len(node.args) == 3 and "axes" in kw:
            raise self.ctx.error(node, "np.tensordot takes two arrays and axes",
                                 cls=PyadTypeError)
        axes_node = node.args[2] if len(node.args) == 3 else kw.get("axes")
        try:
            axes = 2 if axes_node is None else ast.literal_eval(axes_node)
        except ValueError:
            raise self.ctx.error(axes_node, "np.tensordot: axes must be a constant int or "
                                 "two constant lists of axes", cls=PyadTypeError) from None
        arrays = self.lw.arrays
        a, b = (arrays.array(self.lw.exprs.expr(x), x) for x in node.args[:2])
        na, nb = ndim_of(a.type), ndim_of(b.type)
        if isinstance(axes, int) and not isinstance(axes, bool):
            if not 0 <= axes <= min(na, nb):
                raise self.ctx.error(axes_node, f"np.tensordot: axes={axes} does not fit a "
                                     f"{na}-D and a {nb}-D array", cls=PyadTypeError)
            pairs = list(zip(range(na - axes, na), range(axes)))
        else:
            try:
                ax_a, ax_b = ([x] if isinstance(x, int) else list(x) for x in axes)
                ok = len(ax_a) == len(ax_b) and all(isinstance(x, int) for x in ax_a + ax_b) \
                    and all(-na <= x < na for x in ax_a) and all(-nb <= x < nb for x in ax_b)
            except (TypeError, ValueError):
                ok = False
            if not ok or len({x % na for x in ax_a}) != len(ax_a) or \
                    len({x % nb for x in ax_b}) != len(ax_b):
                raise self.ctx.error(axes_node, "np.tensordot: axes must be an int or two "
                                     "lists of distinct axes of equal length",
                                     cls=PyadTypeError)
            pairs = [(x % na, y % nb) for x, y in zip(ax_a, ax_b)]
        ta = "abcdefghi"[:na]
        tb = dict((y, ta[x]) for x, y in pairs)
        fresh = iter("jklmnopqr")
        tb = "".join(tb[k] if k in tb else next(fresh) for k in range(nb))
        summed = {ta[x] for x, _ in pairs}
        out = "".join(x for x in ta + tb if x not in summed)
        if len(out) > 3:
            raise self.ctx.error(node, f"np.tensordot: the result would have {len(out)} axes "
                                 "(pyad's arrays have at most 3)", cls=PyadTypeError,
                                 hint="contract more axes, or reshape the operands first")
        return self.contract([ta, tb], out, [a, b], node)

    def contract(self, terms: list[str], out: str, ops: list[Var], spec: ast.AST) -> Lazy | Var:
        """The sum over the letters not in `out` of the product of the operands `ops`, read
        at their letters `terms`."""
        letters = list(dict.fromkeys("".join(terms)))
        if set(out) - set(letters) or len(set(out)) != len(out) or len(out) > 3:
            raise self.ctx.error(spec, f"np.einsum: bad output subscripts {out!r}"
                                 + (" (arrays have at most 3 dimensions)" if len(out) > 3
                                    else ""), cls=PyadTypeError)
        arrays = self.lw.arrays
        b = self.ctx.b
        size: dict[str, Var] = {}
        for t, a in zip(terms, ops):
            for letter, d in zip(t, arrays.dims(a)):
                if letter in size:
                    b.emit("raise_if", b.ne(d, size[letter]), attrs=(
                        "ValueError", f"np.einsum: operands disagree on the size of {letter}"))
                else:
                    size[letter] = d
        product = self.products(terms, out, ops, spec)
        if product is None and len(ops) > 2:
            product = self.pairwise(terms, out, ops, spec)
        if product is not None:
            return product
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

    def pairwise(self, terms: list[str], out: str, ops: list[Var], spec: ast.AST):
        """Three or more operands contracted two at a time, as opt_einsum and JAX do
        ("ni,ij,nj->n": "ni,ij->nj", a matrix product, then "nj,nj->n"), when that takes
        fewer multiplications than the one loop nest over every letter, counting each letter
        as PAIR_SIZE long: each step contracts the pair whose loop nest has the fewest
        letters (the first such pair), keeping the letters the other operands or the output
        still need. None (the one nest) when it does not pay or an intermediate would have
        more than 3 axes. The sums then run in another order than the one nest's (the
        results differ in the last bits)."""
        terms, ops = list(terms), list(ops)
        n = PAIR_SIZE
        steps, cost = [], 0
        names = list(terms)
        while len(names) > 2:
            best = None
            for i in range(len(names)):
                for j in range(i + 1, len(names)):
                    rest = "".join(t for k, t in enumerate(names) if k not in (i, j)) + out
                    keep = "".join(dict.fromkeys(x for x in names[i] + names[j] if x in rest))
                    c = n ** len(set(names[i] + names[j]))
                    if keep and len(keep) <= 3 and (best is None or c < best[0]):
                        best = (c, i, j, keep)
            if best is None:
                return None
            c, i, j, keep = best
            cost += c
            steps.append((i, j, keep))
            names = [t for k, t in enumerate(names) if k not in (i, j)] + [keep]
        cost += n ** len(set("".join(names)))
        if cost >= (len(terms) - 1) * n ** len(set("".join(terms))):
            return None
        for i, j, keep in steps:
            r = self.contract([terms[i], terms[j]], keep, [ops[i], ops[j]], spec)
            if isinstance(r, Lazy):
                r = self.lw.arrayops.materialize(r)
            terms = [t for k, t in enumerate(terms) if k not in (i, j)] + [keep]
            ops = [a for k, a in enumerate(ops) if k not in (i, j)] + [r]
        return self.contract(terms, out, ops, spec)

    def products(self, terms: list[str], out: str, ops: list[Var],
                 node: ast.AST) -> Var | None:
        """The contraction as matrix products when it is: two float64 operands, and either
        one matrix product (`_product_letters`) or a batch of them over a letter that is
        the first axis of both operands and of the output ("bij,bjk->bik", attention's
        "hnd,hmd->hnm"): a product per batch index, written into the result. A batch letter
        elsewhere (W2's "krc,nkc->nkr") stays element loops: one product per batch index
        there made W2's value and gradient 1.2x slower than the loops, which fuse the
        contraction into the sum that reads it. None when it is not one."""
        if len(ops) != 2 or any(elem_type(a.type) != F64 for a in ops):
            return None
        (ta, tb), (a, b_) = terms, ops
        if len(ta) == len(tb) == len(out) == 3 and ta[0] == tb[0] == out[0] and \
                ta[0] not in ta[1:] + tb[1:] + out[1:] and \
                _product_letters(ta[1:], tb[1:], out[1:]):
            return self._batch(ta, tb, out, a, b_, node)
        if not _product_letters(ta, tb, out):
            return None
        return self._product(ta, tb, out, a, b_)

    def _product(self, ta: str, tb: str, out: str, a: Var, b_: Var) -> Var:
        """The matrix product of `_product_letters`: the operands oriented by transposes
        (swapped when the output wants b's letter first: (A B)^T = B^T A^T)."""
        summed = [x for x in ta if x in tb and x not in out]
        own_a, own_b = [x for x in ta if x not in tb], [x for x in tb if x not in ta]
        if own_a and own_b and out.index(own_b[0]) < out.index(own_a[0]):
            (ta, tb), (a, b_), (own_a, own_b) = (tb, ta), (b_, a), (own_b, own_a)
        b = self.ctx.b

        def oriented(v: Var, term: str, want: list[str]) -> Var:
            return b.emit("transpose", v) if list(term) != want else v
        return b.emit("matmul", oriented(a, ta, own_a + summed), oriented(b_, tb, summed + own_b))

    def _batch(self, ta: str, tb: str, out: str, a: Var, b_: Var, node: ast.AST) -> Var:
        """The product of a's and b's matrices at each index of their first axis, written
        into that matrix of the result."""
        ctx, arrays = self.ctx, self.lw.arrays
        dims = dict(zip(ta, arrays.dims(a))) | dict(zip(tb, arrays.dims(b_)))
        result = arrays.new_array(F64, [dims[x] for x in out])

        def body(bb, i, _):
            with ctx.emitting(bb):
                b = ctx.b
                r = self._product(ta[1:], tb[1:], out[1:], b.emit("row", a, i),
                                  b.emit("row", b_, i))
                self.lw.arrayops.assign_into(b.emit("row", result, i), r, node)
            return []
        for_range(ctx.b, dims[ta[0]], [], body)
        return result


def _product_letters(ta: str, tb: str, out: str) -> bool:
    """Whether "ta,tb->out" is one matrix product: operands of one or two axes, no letter
    twice in one operand, exactly one summed letter (in both), and at each operand at most
    one letter of its own, in the output (at least one of the two has one: a dot product
    stays a loop)."""
    if len(set(ta)) != len(ta) or len(set(tb)) != len(tb):
        return False
    summed = [x for x in ta if x in tb and x not in out]
    own_a, own_b = [x for x in ta if x not in tb], [x for x in tb if x not in ta]
    return len(summed) == 1 and len(own_a) <= 1 and len(own_b) <= 1 and bool(own_a + own_b) \
        and len(out) == len(own_a + own_b)
