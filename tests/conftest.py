"""How the suite is spread over pytest-xdist's workers (`python -m pytest -x -q -n auto`;
pyproject.toml sets `--dist loadgroup`).

The tests of one file run in one worker: module-scoped fixtures (libraries built by
`pyad compile`, the benchmark run, ...) and the caches of compiled functions a file shares
between its tests are then built once, not once per worker. Tests marked `heavy` (tens of
seconds each, e.g. the differential tester's parts) are their own group each and are handed
out first, so that they do not end the run alone on one worker. Without `-n` nothing changes.
"""
from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("heavy") is not None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid))
        elif item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)  # stable
