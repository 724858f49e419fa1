"""A description of the machine and software a benchmark ran on, for the report."""
import os
import platform
import subprocess
import time
from pathlib import Path


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _git(repo: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                             timeout=10)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def describe(versions: dict[str, str]) -> dict:
    """CPU, cores, memory, OS, Python, the git commit of the checkout and `versions`."""
    repo = Path(__file__).resolve().parent.parent
    commit = _git(repo, "rev-parse", "--short", "HEAD")
    if commit and _git(repo, "status", "--porcelain", "--untracked-files=no"):
        commit += " (with uncommitted changes)"
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "commit": commit or "unknown",
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "versions": versions,
    }


def one_line(m: dict) -> str:
    """The machine in one line of Markdown."""
    mem = f", {m['memory_gib']} GiB" if m.get("memory_gib") else ""
    return (f"{m['cpu']}, {m['cores']} cores{mem}, {m['os']}, Python {m['python']}; "
            f"pyad commit {m['commit']}; {m['date']}")
