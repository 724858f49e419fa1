"""The Markdown report of a benchmark run (the structure written by bench.runner)."""
from bench import machine
from bench.timing import FULL
from bench.tools import LABELS, TOOL_NAMES

MIN_CALLS = FULL.min_samples

METHOD = """\
Times are medians of many calls after warm-up, every tool timed in the same process in
interleaved batches, one thread. *value+grad* is one call returning the value and the gradient
(pyad `f.value_and_grad`, JAX `jit(value_and_grad)`, autograd `value_and_grad`, PyTorch forward
+ `autograd.grad`, C the hand-written reverse sweep). *first call*: binding plus the first
value-and-gradient call (primal for primal-only tools) in a fresh process, after imports;
*warm cache*: the same with the tool's on-disk cache filled by an earlier process (C: the
shared library already built; "n/a": the tool has none). *grad err*: max relative error
against fourth-order central finite differences of a NumPy spelling on a few coordinates.
*peak RSS*: peak resident memory (VmHWM) of the first-call process after two calls, or one
when it takes a second or more (in parentheses: the growth after imports and data). *tape*:
bytes pyad's gradient call pushes on its tape. ¹: fewer than three calls timed (one call takes
longer than the time budget)."""


def fmt_time(s: float | None) -> str:
    if s is None:
        return ""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _time(row: dict, kind: str) -> str:
    """The median time, marked ¹ when fewer than MIN_CALLS calls were timed."""
    t = fmt_time(row.get(f"{kind}_s"))
    return t + "¹" if t and row[f"{kind}_calls"] < MIN_CALLS else t


def _ratio(x: float | None) -> str:
    return "" if x is None else f"{x:.3g}"


def _err(x: float | None) -> str:
    return "" if x is None else f"{x:.1e}"


def _first(fc: dict | None, mode: str) -> str:
    r = (fc or {}).get(mode)
    if r is None:
        return ""
    if r["status"] == "ok":
        return fmt_time(r["first_s"])
    return "n/a" if r["status"] == "n/a" else "failed"


def _memory(fc: dict | None) -> str:
    r = (fc or {}).get("cold", {})
    if r.get("status") != "ok":
        return ""
    return f"{r['peak_rss_mib']:.0f} (+{r['peak_rss_mib'] - r['base_rss_mib']:.0f})"


def _tape(n: int | None) -> str:
    if n is None:
        return ""
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB" if n < 2**20 else f"{n / 2**20:.1f} MiB"


HEADER = ("| tool | primal | value+grad | v+g ÷ primal | pyad ÷ tool (primal) | "
          "pyad ÷ tool (v+g) | first call | warm cache | grad err | peak RSS MiB | tape |\n"
          "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")


def _row(tool: str, r: dict) -> str:
    label = LABELS[tool]
    if r["status"] != "ok":
        reason = r["reason"].replace("|", "\\|")
        return f"| {label} | {tool}: failed: {reason} |" + " |" * 9 + "\n"
    fc = r.get("first_call")
    cells = [label, _time(r, "primal"), _time(r, "vgrad"),
             _ratio(r.get("vgrad_over_primal")), _ratio(r["pyad_over"].get("primal")),
             _ratio(r["pyad_over"].get("vgrad")), _first(fc, "cold"), _first(fc, "warm"),
             _err(r.get("grad_err")), _memory(fc), _tape(r.get("tape_bytes"))]
    return "| " + " | ".join(cells) + " |\n"


def overhead_markdown(o: dict) -> str:
    if "error" in o:
        return f"Call-overhead benchmark failed: {o['error']}\n"
    out = ["## Call overhead (ns per call, best of repeats)\n\n",
           "| call | scalar args | array arg |\n|---|--:|--:|\n"]
    calls = dict.fromkeys([c for c in o["scalar"]] + [c for c in o["array"]])
    for c in calls:
        s, a = o["scalar"].get(c), o["array"].get(c)
        cells = ["" if t is None else f"{t:.0f}" for t in (s, a)]
        out.append(f"| {c} | {cells[0]} | {cells[1]} |\n")
    out.append("\n" + o["note"] + "\n")
    if o.get("first_call_ms"):
        out.append("\npyad first-call times: " + "; ".join(
            f"{k} {v:.1f} ms" for k, v in o["first_call_ms"].items()) + "\n")
    for name, why in o.get("skipped", {}).items():
        out.append(f"\nskipped {name}: {why}\n")
    return "".join(out)


def markdown(results: dict) -> str:
    """The whole report: one table per workload, the overhead table, notes."""
    m = results["machine"]
    plan = results["plan"]
    out = [f"# pyad benchmarks ({results['size']} size, up to {plan['rounds']} timing rounds)\n\n",
           f"Machine: {machine.one_line(m)}\n\n",
           f"Command: `{results.get('command', 'python -m bench')}`\n\n",
           "Versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()) + "\n\n"]
    for name, why in results["skipped"].items():
        out.append(f"skipped {name}: {why}\n\n")
    for name, w in results["workloads"].items():
        out.append(f"## {name} {w['title']} ({w['size']}), f = {w['value']:.6g}\n\n")
        out.append(HEADER)
        for tool in TOOL_NAMES:
            if tool in w["rows"]:
                out.append(_row(tool, w["rows"][tool]))
        out.append("\n")
    if "overhead" in results:
        out.append(overhead_markdown(results["overhead"]) + "\n")
    out.append("## Method\n\n" + METHOD + "\n")
    return "".join(out)
