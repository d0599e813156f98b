"""Collision tests write their caches to a temporary folder, never to the user's."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.mktemp("bioik-cache")))
    yield
    mp.undo()
