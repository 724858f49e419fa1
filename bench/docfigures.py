"""The benchmark figures the documentation quotes (README.md, "Performance (measured)";
docs/processes.md, "What a hit skips"), rendered from the result files `python -m bench`
writes, with the machine and the command of each run. Ratios come first, times after them.

A doc holds each as a generated block, `<!-- begin NAME: generated from FILES -->` ... `<!--
end NAME -->`; tests/docs/test_docs_figures.py checks that every such block is what `render`
gives for the result files in the repository (`PYAD_UPDATE_GOLDEN=1` rewrites the blocks after
a new run). The runs:

- PEERS, `bench/results/latest.json`: every peer installed (`pip install -e '.[bench]'`);
- LOCAL, `bench/results/amd-epyc/latest.json`: pyad, C and CPython on another machine (the
  peers were not installed there), for pyad's first-call times on a second machine.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from bench import report
from bench.machine import one_line
from bench.tools import LABELS

RESULTS = Path(__file__).parent / "results"
PEERS = RESULTS / "latest.json"
LOCAL = RESULTS / "amd-epyc" / "latest.json"
DASH = "–"


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def _source(path: Path) -> str:
    return str(path.relative_to(RESULTS.parent.parent))


def _machine(r: dict) -> str:
    return f"{one_line(r['machine'])}; `{r.get('command', 'python -m bench')}`"


def _short(r: dict) -> str:
    """The machine in a few words: CPU, cores and the day."""
    m = r["machine"]
    return f"{m['cpu']}, {m['cores']} cores, {m['date'][:10]}"


def _rows(r: dict, tool: str) -> list[dict]:
    return [w["rows"].get(tool, {}) for w in r["workloads"].values()]


def _ratio(x: float | None) -> str:
    return DASH if x is None else report._ratio(x)


def _workload_label(name: str, w: dict) -> str:
    return f"{name} {w['title']} ({w['size']})"


def peers(r: dict) -> str:
    """The value-and-gradient comparison with the peers: ratios, then times."""
    wl = r["workloads"]
    vs = ("c", "jax", "torch", "autograd")
    out = [f"Measured on {_machine(r)}; peers: "
           + ", ".join(f"{k} {v}" for k, v in r["machine"]["versions"].items()
                       if k not in ("pyad", "pyad_array", "python")) + ".\n\n",
           "Value and gradient in one call, pyad's time ÷ each tool's (below 1: pyad is "
           "faster):\n\n",
           "| workload | " + " | ".join(LABELS[t] for t in vs) + " |\n",
           "|---|" + "--:|" * len(vs) + "\n"]
    for name, w in wl.items():
        cells = [_ratio(w["rows"].get(t, {}).get("pyad_over", {}).get("vgrad")) for t in vs]
        out.append(f"| {_workload_label(name, w)} | " + " | ".join(cells) + " |\n")
    numba = [row.get("pyad_over", {}).get("primal") for row in _rows(r, "numba")]
    own = [row.get("vgrad_over_primal") for row in _rows(r, "pyad")]
    out.append("\nThe primal alone, pyad's time ÷ Numba's: "
               + ", ".join(f"{n} {_ratio(x)}" for n, x in zip(wl, numba)) + ". pyad's value "
               "and gradient ÷ its own primal: "
               + ", ".join(f"{n} {_ratio(x)}" for n, x in zip(wl, own)) + ".\n\n")
    cols = ("pyad", "c", "jax", "torch", "autograd")
    out += ["The times (medians of many calls, one thread) and the bytes pyad's gradient "
            "call tapes:\n\n",
            "| value + gradient | " + " | ".join(LABELS[t] for t in cols)
            + " | Numba primal | pyad primal | pyad tape |\n",
            "|---|" + "--:|" * (len(cols) + 3) + "\n"]
    marked = False
    for name, w in wl.items():
        rows = w["rows"]
        cells = [report._time(rows[t], "vgrad") if "vgrad_s" in rows.get(t, {}) else DASH
                 for t in cols]
        cells.append(report._time(rows["numba"], "primal") if "primal_s" in rows.get("numba", {})
                     else DASH)
        cells.append(report._time(rows["pyad"], "primal"))
        cells.append(report._tape(rows["pyad"].get("tape_bytes")))
        marked = marked or any("¹" in c for c in cells)
        out.append(f"| {name} {w['title']} | " + " | ".join(cells) + " |\n")
    if marked:
        out.append("\n¹ fewer than three calls timed (one call takes longer than the time "
                   "budget).\n")
    return "".join(out)


def _first(row: dict, mode: str) -> float | None:
    fc = row.get("first_call", {}).get(mode, {})
    return fc.get("first_s") if fc.get("status") == "ok" else None


def first_call(pr: dict, lr: dict) -> str:
    """pyad's first call against the peers' (ratios, the PEERS run), then its times on the
    two machines."""
    names = list(pr["workloads"])
    head = " | ".join(names) + " |\n|---|" + "--:|" * len(names) + "\n"
    out = ["First call: binding plus the first value-and-gradient call (the primal for Numba) "
           "in a fresh process, after imports; *warm*: the same with the on-disk cache filled "
           "by an earlier process (pyad's `cache=True`). pyad's time ÷ each peer's, in the run "
           "above:\n\n", "| first call, pyad ÷ | " + head]
    for tool in ("numba", "jax"):
        for mode in ("cold", "warm"):
            cells = []
            for w in pr["workloads"].values():
                mine, theirs = _first(w["rows"]["pyad"], mode), _first(w["rows"].get(tool, {}),
                                                                         mode)
                cells.append(_ratio(mine / theirs if mine and theirs else None))
            out.append(f"| {LABELS[tool]}, {mode} | " + " | ".join(cells) + " |\n")
    slower = [_first(lw["rows"]["pyad"], "cold") / _first(pw["rows"]["pyad"], "cold")
              for pw, lw in zip(pr["workloads"].values(), lr["workloads"].values())]
    out += [f"\npyad's own first call took {min(slower):.1f} to {max(slower):.1f} times as "
            "long on the second machine as on the first:\n\n", "| pyad first call | " + head]
    for r in (pr, lr):
        for mode in ("cold", "warm"):
            cells = [report.fmt_time(_first(row, mode)) or DASH for row in _rows(r, "pyad")]
            out.append(f"| {_short(r)}, {mode} | " + " | ".join(cells) + " |\n")
    out.append(f"\nThe second machine: {_machine(lr)}.\n")
    return "".join(out)


def overhead(r: dict) -> str:
    """The cost of one call from Python, relative to a plain `def` call, then in ns."""
    o = r["overhead"]
    base = {k: o[k]["Python def"] for k in ("scalar", "array")}
    calls = [c for c in dict.fromkeys([*o["scalar"], *o["array"]])
             if c not in ("empty loop", "Python def")]
    out = ["Call overhead (`python -m bench.overhead`, best of repeats, in the run above): "
           "each call ÷ a plain Python `def` call with the same arguments, then in "
           "nanoseconds:\n\n",
           "| call | two floats | a 1000-element array | two floats, ns | array, ns |\n",
           "|---|--:|--:|--:|--:|\n",
           f"| Python def | 1 | 1 | {base['scalar']:.0f} | {base['array']:.0f} |\n"]
    for c in calls:
        t = {k: o[k].get(c) for k in ("scalar", "array")}
        ratios = [_ratio(t[k] / base[k] if t[k] is not None else None) for k in t]
        ns = [DASH if t[k] is None else f"{t[k]:.0f}" for k in t]
        out.append(f"| {c} | " + " | ".join(ratios + ns) + " |\n")
    return "".join(out)


def cache_w2(lr: dict) -> str:
    """The W2 first call with and without a filled cache (docs/processes.md)."""
    w = lr["workloads"]["W2"]
    cold, warm = _first(w["rows"]["pyad"], "cold"), _first(w["rows"]["pyad"], "warm")
    return (f"For the W2 workload (GMM, {w['size']}), binding plus the first "
            f"`value_and_grad` call in a fresh process takes {warm / cold:.2f} of the time "
            f"with a filled cache: {report.fmt_time(cold)} without it, "
            f"{report.fmt_time(warm)} with it (one fresh process each; the pyad row of W2 in "
            f"`{_source(LOCAL.with_suffix('.md'))}`, measured on {_machine(lr)}).\n")


# name -> (the result files it reads, the text)
BLOCKS = {
    "bench-peers": ((PEERS,), lambda: peers(load(PEERS))),
    "bench-first-call": ((PEERS, LOCAL), lambda: first_call(load(PEERS), load(LOCAL))),
    "bench-overhead": ((PEERS,), lambda: overhead(load(PEERS))),
    "bench-cache-w2": ((LOCAL,), lambda: cache_w2(load(LOCAL))),
}


def marker(name: str) -> tuple[str, str]:
    """The begin and end lines of block `name`."""
    files = " and ".join(_source(p) for p in BLOCKS[name][0])
    return f"<!-- begin {name}: generated from {files} -->", f"<!-- end {name} -->"


def render(name: str) -> str:
    """The Markdown of block `name`: prose wrapped at 96 columns, tables as they are."""
    paragraphs = BLOCKS[name][1]().rstrip("\n").split("\n\n")
    return "\n\n".join(p if p.startswith("|") else textwrap.fill(
        p, 96, break_long_words=False, break_on_hyphens=False) for p in paragraphs) + "\n"
