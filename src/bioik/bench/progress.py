"""Progress bars of the long commands (`bioik bench run`, `bioik reach`): tqdm's bar with
rate and ETA on a terminal, nothing otherwise (logs and pipes stay clean)."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(label: str, total: int, done: int = 0, unit: str = "target") -> tqdm:
    """A bar on stderr counting `unit`s up to `total`, starting at `done` (a resumed run);
    disabled when stderr is not a terminal. Close it when the work ends."""
    return tqdm(total=total, initial=done, desc=label, unit=unit, file=sys.stderr, disable=not sys.stderr.isatty(),
                mininterval=0.5, dynamic_ncols=True)
