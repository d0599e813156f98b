"""Named positions in a solver family's settings vector.

A family's parameters reach its compiled search as one float vector, in the order of its
`DEFAULTS`, followed by the fixed values its registry entry appends (a variant code …).
`slots` names those positions once, so kernels read `settings[SETTING.damping]` instead of
`settings[0]`; the index is a compile-time constant in compiled code.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping
from typing import Any


def slots(defaults: Mapping[str, float], *fixed: str) -> Any:
    """A named tuple of indices: the parameters of `defaults` in order, then `fixed`."""
    names = [*defaults, *fixed]
    return namedtuple("Settings", names)(*range(len(names)))
