"""Smoke test of the benchmark runner (bench/): pyad alone, tiny sizes, a handful of calls,
results into a temporary directory. Timings are never asserted, only that they exist."""
import json
import math

import pytest

from bench import timing
from bench.runner import Config, run
from bench.tools import COLORS, LABELS, TOOL_NAMES
from bench.workloads import WORKLOADS

# one worker builds the `results` fixture (the whole bench run) for every test (tests/conftest.py)
pytestmark = pytest.mark.xdist_group("bench_smoke")

SMOKE = timing.Plan(rounds=3, batch_s=1e-3, budget_s=0.01)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    cfg = Config(tools=("pyad", "pyad_array"), size="tiny", plan=SMOKE, firstcall=False,
                 overhead=False, out=out, log=lambda _: None)
    return out, run(cfg)


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_pyad_row(results, name):
    row = results[1]["workloads"][name]["rows"]["pyad"]
    assert row["status"] == "ok", row.get("reason")
    assert math.isfinite(row["vgrad_s"]) and row["vgrad_s"] > 0
    assert math.isfinite(row["primal_s"]) and row["primal_s"] > 0
    assert row["grad_err"] < 1e-5
    assert row["tape_bytes"] >= 0


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_pyad_array_row(results, name):
    """The array spelling compiles and its gradient agrees, where the workload has one."""
    row = results[1]["workloads"][name]["rows"].get("pyad_array")
    if WORKLOADS[name].array_numpy is None:
        assert row is None
        return
    assert row["status"] == "ok", row.get("reason")
    assert row["grad_err"] < 1e-5


def test_files_written(results):
    out, data = results
    assert json.loads((out / "latest.json").read_text())["workloads"].keys() == WORKLOADS.keys()
    text = (out / "latest.md").read_text()
    for name in WORKLOADS:
        assert f"## {name} " in text
    assert "| pyad |" in text


def test_every_tool_has_a_label_and_a_colour():
    """The table and the chart (bench/chart.py, which needs matplotlib: not in the test
    extra) name and colour every tool; the chart once failed on the array-style row."""
    assert set(LABELS) == set(COLORS) == set(TOOL_NAMES)
