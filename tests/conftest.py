"""Shared fixtures; the whole session keeps bioik's disk caches (parsed robots, sphere
covers, grids) in a temporary folder, never in the user's."""

import numpy as np
import pytest


#: Markers whose tests run only when `-m` names them, and why.
OPT_IN = {
    "boundscheck": "compiles every kernel with bounds checks (minutes): run with -m boundscheck",
    "slow": "compiles kernels of their own or runs thousands of solves (minutes): run with -m slow (CI does)",
}


def pytest_collection_modifyitems(config, items):
    """Tests marked `boundscheck` or `slow` run only when `-m` selects them."""
    selected = config.getoption("-m") or ""
    for marker, reason in OPT_IN.items():
        if marker in selected:
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.mktemp("bioik-cache")))
    yield
    mp.undo()
