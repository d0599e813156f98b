"""Scene tests keep their grid cache in a temporary directory, never in ~/.cache."""

import pytest


@pytest.fixture(autouse=True)
def _grid_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("BIOIK_CACHE_DIR", str(tmp_path_factory.mktemp("sdf-cache")))
