"""Name lookup with errors that suggest what the user probably meant."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from bioik.errors import UnknownNameError as UnknownNameError


def suggest(name: str, known: Iterable[str], n: int = 5) -> str:
    """A phrase listing the known names closest to `name` (or all, if few)."""
    known = list(known)
    close = difflib.get_close_matches(name, known, n=n, cutoff=0.4)
    if close:
        return "closest: " + ", ".join(close)
    if len(known) <= 12:
        return "known: " + ", ".join(known)
    return "known: " + ", ".join(known[:12]) + f", … ({len(known)} in all)"


def lookup(index: Mapping[str, int], name: str, what: str, owner: str) -> int:
    """`index[name]`, or an UnknownNameError naming the closest known names."""
    try:
        return index[name]
    except (KeyError, TypeError):
        raise UnknownNameError(f"unknown {what} {name!r} in {owner!r}; {suggest(str(name), index)}") from None
