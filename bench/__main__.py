"""`python -m bench`: run the benchmark suite and print the Markdown report.

    python -m bench [--only W1,W3] [--tools pyad,numba,...] [--size tiny|full] [--quick]
                    [--no-firstcall] [--no-overhead] [--out bench/results]
"""
import bench.threads  # noqa: F401  (before any numerical library)

import argparse
import shlex
import sys
from pathlib import Path

from bench import timing
from bench.runner import RESULTS, Config, run
from bench.tools import TOOL_NAMES
from bench.workloads import WORKLOADS


def _names(text: str, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    names = tuple(s.strip() for s in text.split(",") if s.strip())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown {what}: {', '.join(unknown)} "
                                         f"(known: {', '.join(known)})")
    return names


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    p.add_argument("--only", type=lambda s: _names(s, tuple(WORKLOADS), "workload"),
                   default=tuple(WORKLOADS), help="workloads, e.g. W1,W3 (default: all)")
    p.add_argument("--tools", type=lambda s: _names(s, TOOL_NAMES, "tool"), default=TOOL_NAMES,
                   help=f"tools (default: {','.join(TOOL_NAMES)})")
    p.add_argument("--size", choices=("tiny", "full"), default="full")
    p.add_argument("--quick", action="store_true",
                   help="fewer timing rounds, no warm-cache measurements")
    p.add_argument("--no-firstcall", action="store_true",
                   help="skip the first-call/memory child processes")
    p.add_argument("--no-overhead", action="store_true",
                   help="skip the call-overhead micro-benchmark")
    p.add_argument("--out", type=Path, default=RESULTS, help="output directory")
    a = p.parse_args(argv)
    cfg = Config(workloads=a.only, tools=a.tools, size=a.size,
                 plan=timing.QUICK if a.quick else timing.FULL, firstcall=not a.no_firstcall,
                 warm_cache=not a.quick, overhead=not a.no_overhead, out=a.out,
                 command=shlex.join(["python", "-m", "bench", *argv]))
    run(cfg)
    print((cfg.out / "latest.md").read_text())


if __name__ == "__main__":
    main(sys.argv[1:])
