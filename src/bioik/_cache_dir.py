"""Where bioik keeps what it computes once and reuses: parsed robots, sphere covers,
allowed-collision matrices, signed-distance grids.

`$BIOIK_CACHE_DIR/<kind>` if set, else `$XDG_CACHE_HOME/bioik/<kind>`, else
`~/.cache/bioik/<kind>`. Nothing is created here; a writer creates its folder and writes
whole files (temporary file + `os.replace`), and any problem (a read-only home) only
means computing again.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(kind: str) -> Path:
    """The cache folder of one kind of entry ("models", "collision", "sdf" …)."""
    if os.environ.get("BIOIK_CACHE_DIR"):
        return Path(os.environ["BIOIK_CACHE_DIR"]) / kind
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bioik" / kind
