"""The fenced code blocks of the documentation (README.md and docs/*.md), read with the
conventions of docs/testing.md ("The documentation runs"):

- a fence is three backticks at the start of a line; its info string is one word, the
  language: `python`, `bash`, `c`, or none (or `text`) for a block that is not code;
- an HTML comment on the line just before the opening fence changes how the block runs:
  `<!-- docs-test: no-run: REASON -->` (not run; the reason is required) or
  `<!-- docs-test: repo-root -->` (a shell block run at the root of a copy of the repository
  instead of in the file's scratch directory);
- a block *follows* the previous one when only blank lines separate them: a block without a
  language that follows a block that ran shows what that block printed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

LANGUAGES = ("python", "bash", "c", "", "text")
MARKER = re.compile(r"<!-- docs-test: (?P<mode>no-run|repo-root)(?:: (?P<reason>.*?))? -->")
FILE_NAME = re.compile(r"(?:# |/\* )(?P<name>[\w.-]+\.(?:py|c))(?: \*/)?")


class DocFormatError(Exception):
    """A block the runner cannot read: the docs break a convention."""


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int      # the line of the opening fence, from 1; the body starts on the next line
    lang: str      # "python", "bash", "c", or "" (not code; "text" is read as "")
    body: str      # the lines between the fences, each ending in a newline
    mode: str      # "run", "no-run" or "repo-root"
    reason: str    # why, for "no-run"
    follows: bool  # only blank lines between the previous block's closing fence and this one

    @property
    def rel(self) -> str:
        """The file's path from the repository root."""
        return str(self.doc.relative_to(REPO))

    @property
    def where(self) -> str:
        return f"{self.rel}:{self.line}"

    @property
    def file_name(self) -> str | None:
        """`model.py` for a Python block whose first line is `# model.py`, `main.c` for a C
        block whose first line is `/* main.c */`: the block is that file's text."""
        first = self.body.split("\n", 1)[0]
        m = FILE_NAME.fullmatch(first)
        if m and m["name"].endswith({"python": ".py", "c": ".c"}.get(self.lang, "\0")):
            return m["name"]
        return None


def read(doc: Path) -> list[Block]:
    """The blocks of `doc`, in order; DocFormatError for a block the conventions do not cover
    (an indented fence, an unknown language, a malformed or misplaced marker)."""
    lines = doc.read_text().splitlines()
    rel = doc.relative_to(REPO)
    out: list[Block] = []
    i, previous_end = 0, None
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("<!-- docs-test") and not MARKER.fullmatch(line):
            raise DocFormatError(f"{rel}:{i + 1}: malformed marker {line!r}; write "
                                 "<!-- docs-test: no-run: REASON --> or "
                                 "<!-- docs-test: repo-root -->")
        if MARKER.fullmatch(line) and not (i + 1 < len(lines) and lines[i + 1].startswith("```")):
            raise DocFormatError(f"{rel}:{i + 1}: a docs-test marker must be the line just "
                                 "before a block's opening fence")
        if not line.lstrip().startswith("```"):
            i += 1
            continue
        if line != line.lstrip():
            raise DocFormatError(f"{rel}:{i + 1}: indented fence; the docs runner reads blocks "
                                 "that start at the beginning of a line")
        info = line[3:].strip()
        if info not in LANGUAGES:
            raise DocFormatError(f"{rel}:{i + 1}: block language {info!r}; the docs runner knows "
                                 f"{', '.join(repr(x) for x in LANGUAGES)}")
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        if end == len(lines):
            raise DocFormatError(f"{rel}:{i + 1}: the block is not closed")
        marker = MARKER.fullmatch(lines[i - 1]) if i else None
        mode, reason = (marker["mode"], (marker["reason"] or "").strip()) if marker else ("run", "")
        lang = "" if info == "text" else info
        if mode == "no-run" and not reason:
            raise DocFormatError(f"{rel}:{i}: say why the block cannot run: "
                                 "<!-- docs-test: no-run: REASON -->")
        if mode == "repo-root" and lang != "bash":
            raise DocFormatError(f"{rel}:{i}: repo-root is for shell blocks")
        if mode != "run" and lang == "":
            raise DocFormatError(f"{rel}:{i}: a block that is not code never runs; drop the marker")
        follows = previous_end is not None and all(not s.strip()
                                                   for s in lines[previous_end + 1:i])
        body = "".join(s + "\n" for s in lines[i + 1:end])
        out.append(Block(doc, i + 1, lang, body, mode, reason, follows))
        previous_end, i = end, end + 1
    return out
