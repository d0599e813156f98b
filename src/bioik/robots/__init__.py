"""Bundled robots: URDFs written from published kinematic parameters, with groups.

`names()` lists them, `urdf_path(name)` gives the file (so other tools can load the
same model), `snake(n)` builds an n-joint hyper-redundant chain.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bioik.robots.catalog import ROBOTS
from bioik.robots.snake import snake_groups, snake_urdf

if TYPE_CHECKING:
    from bioik.kinematics.robot import Robot

URDF_DIR = Path(__file__).parent / "urdf"


def names() -> list[str]:
    """Names of the bundled robots."""
    return sorted(ROBOTS)


def urdf_path(name: str) -> Path:
    """Path of a bundled robot's URDF file."""
    from bioik.model.names import UnknownNameError, suggest

    if name not in ROBOTS:
        raise UnknownNameError(f"unknown robot {name!r}; {suggest(name, ROBOTS)}")
    return URDF_DIR / ROBOTS[name]["urdf"]


def snake(n: int, link_length: float | None = None) -> Robot:
    """An n-joint hyper-redundant chain (base `base`, tip `tip`) as a `Robot`."""
    from bioik.kinematics.robot import Robot
    from bioik.model.urdf import parse_urdf

    groups = snake_groups(n)
    return Robot(parse_urdf(snake_urdf(n, link_length)), groups=groups, default_group="chain", source=f"snake({n})")
