"""Frontend, source: find the text a function was defined by, wherever the user wrote it, and
prove it is that text before anything is compiled from it.

Where the text comes from, tried in order:

- the file or the `linecache` entry named by the code object (`inspect.findsource`): modules,
  IPython and Jupyter cells (IPython keeps every cell in `linecache`), Python 3.13's prompt;
- the program of `python -c` (`sys.orig_argv`), for functions defined in `<string>`;
- the readline history of the interactive prompt (`python -i`, plain `python` on a
  terminal), for functions defined in `<stdin>`: the prompt keeps no source, but readline
  keeps the lines typed.

The proof: the recovered text is compiled again, as CPython compiled it (same file name, same
`__future__` flags), and the code object at the function's qualified name and first line must
equal the function's own `__code__` (bytecode, constants, names, variables, line and column
table: `code.__eq__`). Where the whole text is not Python (code run from a Markdown file's
blocks) the function's own lines, compiled alone at their place, may give that proof instead
(for a function at column 0, whose code does not depend on what surrounds it). A module file edited after it was imported, a cell's text that is not
the function's, an `exec` of a different string: all fail it, and are refused with a located
error rather than compiled from text the function was not made from.

Also refused here: a function wrapped by another decorator (`functools.wraps` sets
`__wrapped__`): `inspect` would silently read the inner function's text, and compiling it would
drop the decorator's effect.
"""
from __future__ import annotations

import __future__
import ast
import functools
import inspect
import re
import sys
import textwrap
import types
from dataclasses import dataclass

from ..errors import PyadSyntaxError

_FUTURE_FLAGS = tuple(getattr(__future__, name).compiler_flag
                      for name in __future__.all_feature_names)
#: the first line of a function's text, as inspect.findsource finds it (lambdas too)
_DEF_LINE = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


@dataclass(frozen=True)
class Recovered:
    """The function's lines (decorators included), the number of the first one in `text`,
    and the file name its locations are reported under."""

    lines: list[str]
    start: int
    filename: str


def function_source(fn: types.FunctionType) -> Recovered:
    """The verified source of `fn` (module docstring); `PyadSyntaxError` when it cannot be
    found or is not the text `fn` was compiled from."""
    if getattr(fn, "__wrapped__", None) is not None:
        raise wrapped_error(fn)
    code = fn.__code__
    found = _text_of(fn)
    if found is None:
        raise PyadSyntaxError(f"cannot read the source of {fn.__qualname__}: "
                              f"{_where(code.co_filename)}",
                              filename=display_name(code.co_filename),
                              line=code.co_firstlineno, hint=_missing_hint(code.co_filename))
    lines, filename = found
    start = min(code.co_firstlineno, len(lines)) - 1
    while start > 0 and not _DEF_LINE.match(lines[start]):
        start -= 1  # as inspect.findsource does, from the first line of the code
    block = inspect.getblock(lines[start:])
    if fn.__name__ == "<lambda>" and not _parses(block):
        start, block = _statement_at(lines, code.co_firstlineno, start, block)
    if not (_defines("".join(lines), code) or _defines_alone(block, start, code)):
        first = code.co_firstlineno
        raise PyadSyntaxError(
            f"the source of {fn.__qualname__} changed after it was defined: the text now at "
            f"line {first} of {filename} is not the code Python runs",
            filename=display_name(filename), line=first,
            source_line=lines[first - 1] if 0 < first <= len(lines) else "",
            hint="pyad compiles only the text a function was made from: reload its module "
                 "(importlib.reload) or restart the interpreter or kernel")
    return Recovered(block, start + 1, filename)


def _parses(block: list[str]) -> bool:
    try:
        ast.parse(textwrap.dedent("".join(block)))
        return True
    except SyntaxError:
        return False


def _statement_at(lines: list[str], line: int, start: int,
                  block: list[str]) -> tuple[int, list[str]]:
    """(start, lines) of the top-level statement of the text holding `line`: the whole of
    a dict or list display whose items are lambdas (`{"sq": lambda v: ...,` alone does not
    parse); the given `start` and `block` if the text does not parse."""
    try:
        module = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return start, block
    for st in module.body:
        if st.lineno <= line <= st.end_lineno:
            return st.lineno - 1, lines[st.lineno - 1:st.end_lineno]
    return start, block


# ----------------------------------------------------------------------------- finding text

def _text_of(fn: types.FunctionType) -> tuple[list[str], str] | None:
    """(the lines of the whole text `fn` was defined in, its file name for messages), or
    None."""
    code = fn.__code__
    try:
        lines, _ = inspect.findsource(fn)
        return lines, inspect.getsourcefile(fn) or code.co_filename
    except (OSError, TypeError):
        pass
    texts = []
    if code.co_filename == "<string>" and "-c" in sys.orig_argv[:-1]:
        texts = [sys.orig_argv[sys.orig_argv.index("-c") + 1]]
    elif code.co_filename == "<stdin>":
        texts = _typed_blocks(code.co_name)
    for text in texts:
        if _defines(text, code):
            return text.splitlines(keepends=True), code.co_filename
    return None


def _typed_blocks(name: str) -> list[str]:
    """The definitions of `name` typed at the interactive prompt, latest first, from the
    readline history: a `def name` line with the decorator lines above it and the indented
    lines below it (the prompt compiles each such block on its own, from line 1)."""
    readline = sys.modules.get("readline")
    if readline is None:
        return []
    history = [readline.get_history_item(i) or ""
               for i in range(1, readline.get_current_history_length() + 1)]
    header = re.compile(rf"(async\s+)?def\s+{re.escape(name)}\b")
    blocks = []
    for i in reversed(range(len(history))):
        if not header.match(history[i]):
            continue
        first = i
        while first > 0 and history[first - 1].startswith("@"):
            first -= 1
        last = i + 1
        while last < len(history) and history[last][:1] in (" ", "\t"):
            last += 1
        blocks.append("".join(line + "\n" for line in history[first:last]))
    return blocks


# ----------------------------------------------------------------------------- the proof

def _defines(text: str, code: types.CodeType) -> bool:
    """Whether compiling `text` as CPython did gives `code` at its qualified name and first
    line."""
    flags = sum(f for f in _FUTURE_FLAGS if code.co_flags & f)
    return code in _functions(text, code.co_filename, flags).get(
        (code.co_qualname, code.co_firstlineno), ())


def _defines_alone(block: list[str], start: int, code: types.CodeType) -> bool:
    """Whether the function's own lines, compiled alone at their place, give `code`: for
    text around them that is not Python (code run from the blocks of a Markdown file, as
    the documentation's tests do) or no longer compiles. Only for a function at column 0: an
    indented one is compiled in its class or function, which the whole text gives."""
    if not block or block[0][:1].isspace():
        return False
    return _defines("\n" * start + "".join(block), code)


@functools.lru_cache(maxsize=32)  # a memo: every inlined call of a helper reads its file
def _functions(text: str, filename: str,
               flags: int) -> dict[tuple[str, int], list[types.CodeType]]:
    """The code objects `text` compiles to, by qualified name and first line (two lambdas
    may share both); none if it does not compile."""
    try:
        module = compile(text, filename, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return {}
    found: dict[tuple[str, int], list[types.CodeType]] = {}
    todo = [module]
    while todo:
        for c in todo.pop().co_consts:
            if isinstance(c, types.CodeType):
                found.setdefault((c.co_qualname, c.co_firstlineno), []).append(c)
                todo.append(c)
    return found


# ----------------------------------------------------------------------------- messages

def display_name(filename: str) -> str:
    """How errors name `filename`: IPython's label of a cell (`Cell In[3]`, as in its own
    tracebacks) for the file name it compiled the cell under, else `filename`."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if hasattr(ipython, "get_ipython") else None
    label = getattr(getattr(shell, "compile", None), "format_code_name", None)
    named = label(filename) if label is not None else None
    return f"{named[0]} {named[1]}" if named else filename


def _where(filename: str) -> str:
    """Why no source was found for code compiled under `filename`."""
    if filename == "<stdin>":
        return "the interactive prompt (<stdin>) keeps no source text"
    if filename == "<string>":
        return "a string passed to exec() or compile() (<string>) keeps no source text"
    if filename.startswith("<"):
        return f"{filename} keeps no source text"
    return f"its file {filename} cannot be read (deleted, or a module shipped without source)"


def _missing_hint(filename: str) -> str:
    if filename == "<stdin>":
        return ("define the function in a .py file and import it, or work in IPython or "
                "Jupyter, whose cells keep their source (so does the prompt of Python 3.13+, "
                "and a prompt on a terminal with readline)")
    return "define the function in a .py file (or a notebook cell) and import or run it there"


def wrapped_error(fn: types.FunctionType) -> PyadSyntaxError:
    """The located refusal of a function made by another decorator (`functools.wraps`): at
    that decorator's line if the inner function's source shows it, else at its `def`."""
    inner = inspect.unwrap(fn)
    name = getattr(inner, "__qualname__", "?")
    code = getattr(inner, "__code__", fn.__code__)
    where = {"filename": display_name(code.co_filename), "line": code.co_firstlineno}
    decorator = None
    try:
        lines, start = inspect.getsourcelines(inner)
        fdef = ast.parse(textwrap.dedent("".join(lines))).body[0]
        indent = len(lines[0]) - len(lines[0].lstrip())
        decorator = next((d for d in getattr(fdef, "decorator_list", ())
                          if not _is_pyad(d, inner.__globals__)), None)
        node = decorator or fdef
        where = {"filename": display_name(inspect.getsourcefile(inner) or code.co_filename),
                 "line": start + node.lineno - 1, "col": node.col_offset + indent,
                 "end_col": (node.end_col_offset or 0) + indent,
                 "source_line": lines[node.lineno - 1]}
    except (OSError, TypeError, SyntaxError, IndexError):
        pass
    if decorator is not None:
        return PyadSyntaxError(
            f"{name} is wrapped by the decorator `@{ast.unparse(decorator)}` (it sets "
            "__wrapped__): pyad would compile the inner function without the decorator's "
            "effect", hint="put @pyad.jit_grad directly above the `def`, below the other "
            "decorators: it then compiles the function, and the decorator wraps the compiled "
            "one", **where)
    return PyadSyntaxError(
        f"the function given wraps {name} (it sets __wrapped__, as functools.wraps does): "
        f"pyad would compile {name} without what the wrapper does", hint=f"pass {name} "
        "itself to pyad, and apply the wrapper to the compiled function", **where)


def _is_pyad(node: ast.expr, namespace: dict) -> bool:
    """Whether decorator `node` (a name or attribute path, maybe called) is pyad's own."""
    if isinstance(node, ast.Call):
        node = node.func
    path = []
    while isinstance(node, ast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in namespace:
        return False
    obj = namespace[node.id]
    for attr in reversed(path):
        obj = getattr(obj, attr, None)
    module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    return module == "pyad" or module.startswith("pyad.")
