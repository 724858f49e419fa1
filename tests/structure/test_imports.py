"""The shape of the code base: the imports between pyad's modules form a DAG, files stay
small, and no import hides inside a function without a reason.

The graph is read from the source with `ast` (nothing is imported). Its nodes are the modules
of `pyad/` (subpackages included) and of `codegen/`, which is installed as `pyad.codegen`
(codegen/x.py is `pyad.codegen.x`). Every `import` and `from ... import` statement counts,
at module level and inside functions alike; relative imports are resolved against the
importing module's package. `from P import n` is an edge to the module `P.n` when that is a
module of the project, to `P` otherwise; `import P.M` is an edge to `P.M`. The package
`__init__` files Python runs on the way to a submodule are not edges (every submodule would
otherwise form a cycle with its package's `__init__`).

A function-local import of a project module is allowed only with a comment containing
`import-time` on the same line or the line before it, saying what importing at the top
would cost (e.g. "import-time: llvmlite loads lazily, `import pyad` must stay fast"); a
function-local import that only hides a cycle is the cycle to fix.
"""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"pyad": ROOT / "pyad", "pyad.codegen": ROOT / "codegen"}
MAX_LINES = 500
MAX_AD_FUNCTION = 80
MARKER = "import-time"


@dataclass(frozen=True)
class Import:
    source: str        # importing module
    target: str        # imported project module
    where: str         # file:line
    local: bool        # inside a function
    line: int


def _modules() -> dict[str, Path]:
    """Module name -> file, for every .py file of the project's packages."""
    mods: dict[str, Path] = {}
    for pkg, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if pkg == "pyad" and parts[:1] == ["codegen"]:
                continue  # a link to codegen/ in some installs: counted as pyad.codegen
            mods[".".join([pkg, *parts])] = path
    return mods


MODULES = _modules()


def _package_of(module: str) -> str:
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = _package_of(module).split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _project(name: str) -> str | None:
    """The project module `name` refers to: itself, or its nearest enclosing module."""
    if name == "codegen" or name.startswith("codegen."):
        name = "pyad." + name  # the stray top-level spelling: still this project's module
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _function_lines(tree: ast.AST) -> set[int]:
    """Line numbers of import statements inside functions (or lambdas)."""
    out: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    out.add(node.lineno)
    return out


def imports_of(module: str) -> list[Import]:
    path = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    local = _function_lines(tree)
    where = lambda n: f"{path.relative_to(ROOT)}:{n.lineno}"  # noqa: E731
    found: list[Import] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                       for a in node.names]
        for t in targets:
            target = _project(t)
            if target is not None and target != module:
                found.append(Import(module, target, where(node), node.lineno in local,
                                    node.lineno))
    return found


def import_graph() -> dict[str, list[Import]]:
    return {m: imports_of(m) for m in MODULES}


def _strongly_connected(graph: dict[str, list[Import]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted({e.target for e in graph[root]})))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted({e.target for e in graph[w]}))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def _path(graph: dict[str, list[Import]], members: set[str], start: str,
          goal: str) -> list[Import]:
    """A shortest chain of imports from `start` to `goal` inside `members` (BFS)."""
    prev: dict[str, Import] = {}
    frontier, seen = [start], {start}
    while frontier:
        nxt = []
        for v in frontier:
            for e in graph[v]:
                if e.target in members and e.target not in seen:
                    seen.add(e.target)
                    prev[e.target] = e
                    nxt.append(e.target)
        frontier = nxt
    path: list[Import] = []
    node = goal
    while node != start:
        path.insert(0, prev[node])
        node = path[0].source
    return path


def cycles(graph: dict[str, list[Import]]) -> list[list[Import]]:
    """For every import inside a strongly connected component, a shortest cycle through it
    (each cycle once, shortest first): removing one edge of each cycle breaks them all."""
    found: dict[tuple, list[Import]] = {}
    for comp in _strongly_connected(graph):
        members = set(comp)
        for u in comp:
            for e in graph[u]:
                if e.target not in members:
                    continue
                cycle = [e] + (_path(graph, members, e.target, u) if e.target != u else [])
                k = min(range(len(cycle)), key=lambda i: cycle[i].source)
                cycle = cycle[k:] + cycle[:k]
                found.setdefault(tuple((c.source, c.target) for c in cycle), cycle)
    return sorted(found.values(), key=lambda c: (len(c), c[0].source))


def describe_cycles(graph: dict[str, list[Import]]) -> list[str]:
    out = []
    for comp in _strongly_connected(graph):
        out.append(f"  {len(comp)} modules import each other: {', '.join(comp)}")
    for cycle in cycles(graph):
        steps = "\n".join(f"      {e.source} -> {e.target}  ({e.where}"
                          f"{', in a function' if e.local else ''})" for e in cycle)
        out.append(f"    cycle of {len(cycle)}:\n{steps}")
    return out


# ------------------------------------------------------------------------------------ tests
def test_the_graph_sees_the_known_edges():
    graph = import_graph()
    assert "pyad.codegen.jit" in MODULES and "pyad.api.jit" in MODULES
    targets = {e.target for e in graph["pyad.api.specialize"]}
    assert {"pyad.pipeline", "pyad.codegen.build"} <= targets  # function-local imports too
    assert "pyad.ir.nodes" in {e.target for e in graph["pyad.codegen.lower.emit"]}


def test_import_graph_has_no_cycle():
    cycles = describe_cycles(import_graph())
    assert not cycles, "the imports between pyad's modules must form a DAG:\n" + \
        "\n".join(cycles)


def test_codegen_never_imports_ad_or_the_frontend():
    """The backend reads the IR and the op table; the pipeline owns every IR transform."""
    frontend_or_ad = ("pyad.ad", "pyad.frontend", "pyad.pipeline", "pyad.ir.loops")
    bad = [f"{e.where}: {e.source} imports {e.target}" for m, es in import_graph().items()
           if m.startswith("pyad.codegen") for e in es
           if e.target.startswith(frontend_or_ad)]
    assert not bad, "\n".join(bad)


def test_files_are_small():
    big = [f"{p.relative_to(ROOT)}: {n} lines" for p in MODULES.values()
           if (n := len(p.read_text().splitlines())) > MAX_LINES]
    assert not big, f"files over {MAX_LINES} lines (split them by job):\n" + "\n".join(big)


def test_ad_functions_fit_on_a_screen():
    """Every function of the AD pass reads in one go (at most MAX_AD_FUNCTION lines)."""
    long = []
    for name, path in MODULES.items():
        if name == "pyad.ad" or name.startswith("pyad.ad."):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        (n := node.end_lineno - node.lineno + 1) > MAX_AD_FUNCTION:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name}, {n} lines")
    assert not long, "\n".join(long)


def _comment_lines(path: Path) -> dict[int, str]:
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return {t.start[0]: t.string for t in tokens if t.type == tokenize.COMMENT}


def test_function_local_imports_say_why():
    """The comment goes on the import's line or the line before it; one comment above a run
    of consecutive import lines covers the run."""
    bad = []
    for module, edges in import_graph().items():
        comments = _comment_lines(MODULES[module])
        lines = {e.line for e in edges if e.local}
        for e in edges:
            first = e.line
            while first - 1 in lines:
                first -= 1
            if e.local and not any(MARKER in comments.get(n, "")
                                   for n in (e.line, first, first - 1)):
                bad.append(f"{e.where}: {e.source} imports {e.target} inside a function")
    bad = list(dict.fromkeys(bad))
    assert not bad, (f"function-local imports of pyad modules need a `# {MARKER}: ...` "
                     "comment saying what a top-level import would cost (or fix the cycle "
                     "they hide):\n" + "\n".join(bad))
