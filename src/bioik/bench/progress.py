"""Progress bars of the long commands (`bioik bench run`, `bioik bench tune`, `bioik reach`,
the scene target search): tqdm's bar with rate and ETA on a terminal, nothing otherwise
(logs and pipes stay clean)."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(label: str, total: int, done: int = 0, unit: str = "target", disable: bool = False) -> tqdm:
    """A bar on stderr counting `unit`s up to `total`, starting at `done` (a resumed run);
    disabled when stderr is not a terminal (or when `disable`). Close it when the work ends."""
    return tqdm(total=total, initial=done, desc=label, unit=unit, file=sys.stderr, disable=disable or not sys.stderr.isatty(),
                mininterval=0.5, dynamic_ncols=True)
