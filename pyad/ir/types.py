"""The value types of the IR, as strings: "f64", "i64", "bool" and arrays of them
("f64[2d]"), with the helpers that read them. A module of its own (nodes.py re-exports it):
the API reads types on every call without loading the IR's data structures."""
from __future__ import annotations

F64, I64, BOOL = "f64", "i64", "bool"
SCALAR_TYPES = (F64, I64, BOOL)
MAX_NDIM = 3


def array_type(elem: str, ndim: int) -> str:
    return f"{elem}[{ndim}d]"


def is_array(t: str) -> bool:
    return t.endswith("d]")


def elem_type(t: str) -> str:
    return t.split("[", 1)[0]


def ndim_of(t: str) -> int:
    return int(t[t.index("[") + 1]) if is_array(t) else 0


ARRAY_TYPES = tuple(array_type(e, n) for e in SCALAR_TYPES for n in range(1, MAX_NDIM + 1))
TYPES = SCALAR_TYPES + ARRAY_TYPES
