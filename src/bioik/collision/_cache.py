"""A small on-disk cache for collision models (sphere covers, allowed-collision matrices).

Both are deterministic functions of a robot's geometry and a few parameters and cost up to
a few seconds to compute, so they are kept in memory and, when a cache folder is writable,
on disk: ``$BIOIK_CACHE_DIR``, else ``$XDG_CACHE_HOME/bioik``, else ``~/.cache/bioik``.
Files are written whole through a temporary file and `os.replace`, so a reader never sees
a half-written entry and concurrent writers of the same key are harmless. Any problem
(read-only home, corrupt file) just means computing again.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from bioik import _cache_dir


def cache_dir() -> Path:
    """The folder for the collision caches (not created here)."""
    return _cache_dir.cache_dir("collision")


def load(kind: str, key: str) -> Any | None:
    """The JSON value stored under (kind, key), or None."""
    try:
        return json.loads((cache_dir() / f"{kind}-{key}.json").read_text())
    except (OSError, ValueError):
        return None


def store(kind: str, key: str, value: Any) -> None:
    """Store a JSON value atomically; silently skipped if the folder is not writable."""
    _cache_dir.write_whole(cache_dir() / f"{kind}-{key}.json", lambda f: f.write(json.dumps(value).encode()))


def load_arrays(kind: str, key: str) -> dict[str, Any] | None:
    """The arrays stored under (kind, key) by `store_arrays`, or None."""
    try:
        with np.load(cache_dir() / f"{kind}-{key}.npz") as f:
            return {name: f[name] for name in f.files}
    except (OSError, ValueError):
        return None


def store_arrays(kind: str, key: str, arrays: dict[str, Any]) -> None:
    """Store named arrays atomically (numpy's .npz: large float arrays, read back exactly)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    _cache_dir.write_whole(cache_dir() / f"{kind}-{key}.npz", lambda f: f.write(buffer.getvalue()))
