"""Signatures in Numba's spelling, for `pyad compile --sig`.

    f64(f64[:], i64)                 one f64 result, a 1-D float64 array and an int argument
    (f64, f64[:])(f64[:, :])         a tuple of results (nested tuples are allowed)
    bool(i64[:], bool)

Scalar types: `f64` (also `float64`, `f8`, `double`), `i64` (`int64`, `i8`) and `bool`
(`boolean`, `b1`). Arrays: a scalar type followed by `[:]`, `[:, :]` or `[:, :, :]`; `::1`
on the last axis (Numba's C-contiguous layout) is accepted too, because every array of the
C ABI is C-contiguous. The result type comes first, as in Numba, and is checked against the
type pyad infers for the function.

`parse(text)` returns a `Signature` of pyad type strings ("f64", "f64[1d]", ...) or raises
`SignatureError` with a one-line message naming the column.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from .. import pytree
from ..ir.nodes import BOOL, F64, I64, MAX_NDIM, array_type, elem_type, is_array, ndim_of

_SCALARS = {
    "f64": F64, "float64": F64, "f8": F64, "double": F64,
    "i64": I64, "int64": I64, "i8": I64,
    "bool": BOOL, "boolean": BOOL, "b1": BOOL,
}
# Spellings of types pyad does not compile, for a better message than "unknown type".
_UNSUPPORTED = {
    "f32", "float32", "f4", "float", "i32", "int32", "i4", "int", "i16", "int16", "i2", "int8",
    "u1", "u2", "u4", "u8", "u16", "u32", "u64", "uint8", "uint16", "uint32", "uint64", "intp",
    "uintp", "c8", "c16", "c64", "c128", "complex64", "complex128", "void", "none",
    "f2", "float16", "unicode_type", "string",
}
_SUPPORTED_TEXT = ("f64, i64, bool, and arrays of them with 1 to 3 dimensions "
                   "(f64[:], f64[:, :], f64[:, :, :])")

Result = Union[str, tuple]  # a pyad type, or a (nested) tuple of them


class SignatureError(ValueError):
    """A malformed or unsupported signature; the message is one line."""


@dataclass(frozen=True)
class Signature:
    result: Result             # pyad type string or nested tuple of them
    args: tuple[str, ...]      # pyad type strings

    def __str__(self) -> str:
        return f"{spell(self.result)}({', '.join(spell(a) for a in self.args)})"


def spell(t: Result) -> str:
    """The Numba spelling of a pyad type (or nested tuple of types): f64[2d] -> f64[:, :]."""
    if isinstance(t, tuple):
        inner = ", ".join(spell(x) for x in t)
        return f"({inner},)" if len(t) == 1 else f"({inner})"
    if is_array(t):
        return f"{elem_type(t)}[{', '.join([':'] * ndim_of(t))}]"
    return t


def flatten(t: Result) -> list[str]:
    """The types of a (nested) result in order."""
    return pytree.leaves(t)


_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<dcolon1>::\s*1)|(?P<punct>[(),\[\]:]))")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[tuple[str, str, int]] = []  # (kind, text, column 1-based)
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                self.fail(f"unexpected character {text[pos]!r}", pos + 1)
            kind = m.lastgroup
            start = m.start(kind)
            self.toks.append((kind, m.group(kind), start + 1))
            pos = m.end()
        self.toks.append(("end", "", len(text) + 1))
        self.i = 0

    def fail(self, message: str, col: int):
        raise SignatureError(f"invalid signature {self.text!r} at column {col}: {message}")

    def peek(self) -> tuple[str, str, int]:
        return self.toks[self.i]

    def take(self) -> tuple[str, str, int]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, text: str, what: str) -> None:
        kind, t, col = self.take()
        if t != text or kind == "name":
            self.fail(f"expected {what}, found {_show(kind, t)}", col)

    # sig := result '(' [type {',' type} [',']] ')'
    def signature(self) -> Signature:
        if self.peek()[0] == "end":
            self.fail("empty signature; expected e.g. 'f64(f64[:], i64)'", 1)
        result = self.result()
        kind, t, col = self.peek()
        if t != "(":
            if kind == "end":
                self.fail("missing the argument list: write the result type, then the "
                          "argument types in parentheses, e.g. 'f64(f64[:])'", col)
            self.fail(f"expected '(' before the argument types, found {_show(kind, t)}", col)
        self.take()
        args: list[str] = []
        while self.peek()[1] != ")":
            if self.peek()[0] == "end":
                self.fail("expected ')'", self.peek()[2])
            args.append(self.type_())
            kind, t, col = self.peek()
            if t == ",":
                self.take()
            elif t != ")":
                self.fail(f"expected ',' or ')', found {_show(kind, t)}", col)
        self.take()
        kind, t, col = self.peek()
        if kind != "end":
            self.fail(f"unexpected {_show(kind, t)} after the argument list", col)
        return Signature(result, tuple(args))

    # result := type | '(' result {',' result} [','] ')'
    def result(self) -> Result:
        kind, t, col = self.peek()
        if t != "(":
            return self.type_()
        self.take()
        items: list[Result] = []
        trailing_comma = False
        while self.peek()[1] != ")":
            if self.peek()[0] == "end":
                self.fail("expected ')'", self.peek()[2])
            items.append(self.result())
            trailing_comma = False
            k2, t2, c2 = self.peek()
            if t2 == ",":
                self.take()
                trailing_comma = True
            elif t2 != ")":
                self.fail(f"expected ',' or ')', found {_show(k2, t2)}", c2)
        self.take()
        if not items:
            self.fail("an empty tuple is not a result type", col)
        if len(items) == 1 and not trailing_comma:
            return items[0]  # parentheses only
        return tuple(items)

    # type := NAME ['[' dim {',' dim} ']'];  dim := ':' | '::1'
    def type_(self) -> str:
        kind, t, col = self.take()
        if kind != "name":
            self.fail(f"expected a type, found {_show(kind, t)}", col)
        name = t.lower()
        if name not in _SCALARS:
            if name in _UNSUPPORTED:
                raise SignatureError(f"unsupported type {t!r} in signature {self.text!r} at "
                                     f"column {col}: pyad compiles {_SUPPORTED_TEXT}")
            self.fail(f"unknown type {t!r} (supported: {_SUPPORTED_TEXT})", col)
        elem = _SCALARS[name]
        if self.peek()[1] != "[":
            return elem
        self.take()
        dims: list[tuple[str, int]] = []
        while True:
            k2, t2, c2 = self.take()
            if not (k2 == "dcolon1" or (k2 == "punct" and t2 == ":")):
                self.fail(f"expected ':' for an array axis, found {_show(k2, t2)}", c2)
            dims.append((k2, c2))
            k3, t3, c3 = self.take()
            if t3 == "]":
                break
            if t3 != ",":
                self.fail(f"expected ',' or ']', found {_show(k3, t3)}", c3)
        for k, (kind_k, c_k) in enumerate(dims):
            if kind_k == "dcolon1" and k != len(dims) - 1:
                raise SignatureError(
                    f"unsupported layout in signature {self.text!r} at column {c_k}: '::1' is "
                    "allowed only on the last axis; arrays of the C ABI are C-contiguous")
        if len(dims) > MAX_NDIM:
            raise SignatureError(f"unsupported type in signature {self.text!r} at column {col}: "
                                 f"{len(dims)}-D arrays; pyad compiles arrays of 1 to "
                                 f"{MAX_NDIM} dimensions")
        return array_type(elem, len(dims))


def _show(kind: str, text: str) -> str:
    return "the end" if kind == "end" else repr(text.replace(" ", ""))


def parse(text: str) -> Signature:
    """Parse a Numba-style signature such as 'f64(f64[:], i64)'."""
    return _Parser(text).signature()
