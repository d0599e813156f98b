"""Where bioik keeps what it computes once and reuses: parsed robots, sphere covers,
allowed-collision matrices, signed-distance grids.

`$BIOIK_CACHE_DIR/<kind>` if set, else `$XDG_CACHE_HOME/bioik/<kind>`, else
`~/.cache/bioik/<kind>`. Nothing is created here; a writer creates its folder and writes
whole files (temporary file + `os.replace`), and any problem (a read-only home) only
means computing again.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


def cache_dir(kind: str) -> Path:
    """The cache folder of one kind of entry ("models", "collision", "sdf" …)."""
    if os.environ.get("BIOIK_CACHE_DIR"):
        return Path(os.environ["BIOIK_CACHE_DIR"]) / kind
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bioik" / kind


def write_whole(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write `path` through `write(file)` into a temporary file renamed into place, so a
    reader sees the whole file or none; skipped without a word where it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem[:16]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass
