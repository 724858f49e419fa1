"""How the suite is spread over pytest-xdist's workers (`python -m pytest -x -q -n auto`).

Tests marked `heavy` (tens of seconds each, e.g. the differential tester's parts) are handed
out first, so that they do not end the run alone on one worker. pyproject.toml sets
`--dist loadgroup`: a module whose tests must share one worker can mark them with
`pytest.mark.xdist_group(name)`; no module does so today (module-scoped fixtures are then
built once per worker that runs the module's tests). Without `-n` only the order changes.
"""
from __future__ import annotations


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)  # stable
