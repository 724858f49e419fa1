"""The PNG chart of a benchmark run: value+grad time per workload and tool, log scale
(primal-only tools shown hatched with their primal time, as the native-speed floor)."""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from bench.tools import COLORS, LABELS, TOOL_NAMES  # noqa: E402


def _bars(results: dict) -> dict[str, list[float | None]]:
    """tool -> one time per workload (None where the tool has no figure)."""
    wl = results["workloads"]
    out = {}
    for tool in TOOL_NAMES:
        times = []
        for w in wl.values():
            row = w["rows"].get(tool, {})
            times.append(row.get("vgrad_s", row.get("primal_s")))
        if any(t is not None for t in times):
            out[tool] = times
    return out


def save(results: dict, path: Path) -> None:
    """Write the chart to `path`."""
    names = list(results["workloads"])
    bars = _bars(results)
    width = 0.8 / max(1, len(bars))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.9 * len(names) + 2), 4.8), dpi=120)
    for k, (tool, times) in enumerate(bars.items()):
        primal_only = all("vgrad_s" not in w["rows"].get(tool, {})
                          for w in results["workloads"].values())
        xs = [i + (k - (len(bars) - 1) / 2) * width for i, t in enumerate(times) if t is not None]
        ys = [t for t in times if t is not None]
        ax.bar(xs, ys, width, label=LABELS[tool], color=COLORS[tool],
               hatch="//" if primal_only else None, alpha=0.45 if primal_only else 0.9,
               edgecolor="white" if not primal_only else COLORS[tool])
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([f"{n}\n{results['workloads'][n]['title']}" for n in names])
    ax.set_ylabel("seconds per call (value + gradient)")
    m = results["machine"]
    ax.set_title(f"value+grad time, {results['size']} size; hatched: primal only\n"
                 f"{m['cpu']}, 1 thread", fontsize=9)
    ax.grid(axis="y", which="major", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
