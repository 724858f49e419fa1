"""Parser for the IR text form printed by `pyad.ir.nodes.format_func` (print/parse round-trips)."""
from __future__ import annotations

import re

from ..errors import PyadError
from .nodes import Block, Func, If, Loc, Note, Op, Var, While

_HEAD = re.compile(r"func (?P<name>[\w.]+)\((?P<params>.*)\) -> \((?P<rtypes>.*)\) \{$")
_LOC = re.compile(r"\s+!(\d+):(\d+)$")
_WHILE = re.compile(r"while \((?P<inits>[^)]*)\) cond\((?P<cparams>[^)]*)\) \{$")
_DO = re.compile(r"\} do\((?P<bparams>[^)]*)\) \{$")
_NAME = re.compile(r"%(\w+(?:\.\w+)*)")  # a value's name in a loop's note
_DEF = re.compile(r"(?P<outs>%[\w.]+: [\w\[\]]+(?:, %[\w.]+: [\w\[\]]+)*) = (?P<rhs>.*)$")


class IRParseError(PyadError):
    pass


def parse_func(text: str) -> Func:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    m = _HEAD.match(lines[0].strip())
    if not m:
        raise IRParseError(f"line 1: expected `func name(...) -> (...) {{`: {lines[0]!r}")
    p = _Parser(lines)
    params = tuple(p.decl(x) for x in _split(m["params"]))
    body, results, end = p.block(1, "return")
    if end != len(lines) - 1 or lines[end].strip() != "}":
        raise IRParseError(f"line {end + 1}: expected the closing `}}`")
    return Func(m["name"], Block(params, body, results))


def _split(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.vars: dict[str, Var] = {}

    def decl(self, text: str) -> Var:
        name, _, typ = text.partition(":")
        v = Var(name.strip().lstrip("%"), typ.strip())
        self.vars[v.name] = v
        return v

    def use(self, tok: str, i: int) -> Var:
        name = tok.lstrip("%")
        if name not in self.vars:
            raise IRParseError(f"line {i + 1}: %{name} is not defined")
        return self.vars[name]

    def note(self, text: str) -> Note:
        """A loop's note with each value it mentions resolved (called once the loop is
        parsed); a name that is not defined stays text."""
        pieces: list = []
        for k, part in enumerate(_NAME.split(text)):  # text, name, text, name, ..., text
            v = self.vars.get(part) if k % 2 else None
            piece = v if v is not None else ("%" + part if k % 2 else part)
            if isinstance(piece, str) and pieces and isinstance(pieces[-1], str):
                pieces[-1] += piece
            elif piece != "":
                pieces.append(piece)
        return tuple(pieces)

    def block(self, i: int, terminator: str) -> tuple[tuple, tuple, int]:
        """Statements from line i up to `terminator`; returns (body, results, index after)."""
        body = []
        note: list[str] = []
        while i < len(self.lines):
            line = self.lines[i].strip()
            if line.startswith("#"):  # a loop's note
                note.append(line[2:] if line.startswith("# ") else line[1:])
                i += 1
                continue
            loc = None
            lm = _LOC.search(line)
            if lm:
                loc, line = Loc(int(lm[1]), int(lm[2])), line[:lm.start()]
            if line.startswith(terminator + " ") or line == terminator:
                rest = line[len(terminator):]
                return tuple(body), tuple(self.use(t, i) for t in _split(rest)), i + 1
            m = _DEF.match(line)
            outs_text, rhs = (m["outs"], m["rhs"]) if m else ("", line)
            if rhs.startswith("if ") and rhs.endswith("{"):
                cond = self.use(rhs[3:-1].strip(), i)
                then_body, then_res, i = self.block(i + 1, "yield")
                if self.lines[i].strip() != "} else {":
                    raise IRParseError(f"line {i + 1}: expected `}} else {{`")
                else_body, else_res, i = self.block(i + 1, "yield")
                if self.lines[i].strip() != "}":
                    raise IRParseError(f"line {i + 1}: expected `}}`")
                outs = tuple(self.decl(x) for x in _split(outs_text))
                body.append(If(outs, cond, Block((), then_body, then_res),
                               Block((), else_body, else_res), loc))
                i += 1
                continue
            wm = _WHILE.match(rhs)
            if wm:
                inits = tuple(self.use(t, i) for t in _split(wm["inits"]))
                cparams = tuple(self.decl(x) for x in _split(wm["cparams"]))
                cond_body, cond_res, i = self.block(i + 1, "yield")
                dm = _DO.match(self.lines[i].strip())
                if not dm:
                    raise IRParseError(f"line {i + 1}: expected `}} do(...) {{`")
                bparams = tuple(self.decl(x) for x in _split(dm["bparams"]))
                body_body, body_res, i = self.block(i + 1, "yield")
                if self.lines[i].strip() != "}":
                    raise IRParseError(f"line {i + 1}: expected `}}`")
                outs = tuple(self.decl(x) for x in _split(outs_text))
                body.append(While(outs, inits, Block(cparams, cond_body, cond_res),
                                  Block(bparams, body_body, body_res), loc,
                                  self.note("\n".join(note))))
                note = []
                i += 1
                continue
            op, _, operands = rhs.partition(" ")
            args, attrs = [], []
            if op == "raise_if":   # `raise_if %c, ValueError, a message, with commas`
                cond, exc, message = (t.strip() for t in operands.split(",", 2))
                args, attrs = [self.use(cond, i)], [exc, message]
                operands = ""
            for tok in _split(operands):
                if tok.startswith("%"):
                    args.append(self.use(tok, i))
                else:
                    attrs.append(_literal(tok, i))
            outs = tuple(self.decl(x) for x in _split(outs_text))
            body.append(Op(outs, op, tuple(args), tuple(attrs), loc))
            i += 1
        raise IRParseError(f"missing `{terminator}`")


def _literal(tok: str, i: int):
    if tok in ("true", "false"):
        return tok == "true"
    try:
        return int(tok)
    except ValueError:
        pass
    try:
        return float(tok)
    except ValueError:
        pass
    if tok.isidentifier():
        return tok  # a word attribute, e.g. `alloc %n, shadow`
    raise IRParseError(f"line {i + 1}: cannot read constant {tok!r}")
