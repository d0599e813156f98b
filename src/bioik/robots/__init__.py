"""Bundled robots: URDFs written from published kinematic parameters, with groups.

`names()` lists them, `urdf_path(name)` gives the file (so other tools can load the
same model), `snake(n)` builds an n-joint hyper-redundant chain, and `load_robot` (also
`bioik.load_robot`) is the one loader of robots: bundled names, ``snakeN``, URDF files and
text, and models.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from bioik.kinematics.robot import Robot
from bioik.model.group import GroupSpec
from bioik.model.names import UnknownNameError, suggest
from bioik.model.robot_model import RobotModel
from bioik.model.urdf import parse_urdf
from bioik.model.urdf_source import is_file, looks_like_text
from bioik.robots.catalog import ROBOTS
from bioik.robots.snake import snake_groups, snake_urdf

URDF_DIR = Path(__file__).parent / "urdf"


def names() -> list[str]:
    """Names of the bundled robots.

    Returns:
        The names, sorted.
    """
    return sorted(ROBOTS)


def urdf_path(name: str) -> Path:
    """Path of a bundled robot's URDF file.

    Args:
        name: a bundled robot's name (an UnknownNameError lists the closest ones).

    Returns:
        The file's path.
    """
    if name not in ROBOTS:
        raise UnknownNameError(f"unknown robot {name!r}; {suggest(name, ROBOTS)}")
    return URDF_DIR / ROBOTS[name]["urdf"]


def snake(n: int, link_length: float | None = None, *, group: GroupSpec = None, frozen: Mapping[str, float] | None = None) -> Robot:
    """An n-joint hyper-redundant chain (base `base`, tip `tip`) as a `Robot`."""
    groups = snake_groups(n)
    return Robot(parse_urdf(snake_urdf(n, link_length)), group, groups=groups, default_group="chain", frozen=frozen, source=f"snake({n})")


def load_robot(x: str | bytes | Path | RobotModel, group: GroupSpec = None, frozen: Mapping[str, float] | None = None, *,
               mesh_dirs: Sequence[str | os.PathLike] = (), allow_outside: bool = False,
               srdf: str | bytes | os.PathLike | None = None) -> Robot:
    """Load a robot: a bundled name, ``snakeN``, a URDF path, URDF text or bytes, or a
    `RobotModel`.

    Args:
        x: a bundled name (see `bioik.robots.names()`), ``snakeN`` (an N-joint chain, as
            `snake(N)`), a URDF path, URDF text or bytes, or a `RobotModel`. An unknown
            name raises UnknownNameError listing the closest bundled names.
        group: None (the robot's default group; for a plain URDF every joint), a group
            name, a list of joint names, a list of (base, tip) link pairs, or a dict with
            "chains", "joints" and/or "tips".
        frozen: values (by variable name) of the joints outside the group.
        mesh_dirs: folders, beside the URDF's own, where the mesh files it names may lie.
        allow_outside: trust the URDF to name any file (see `bioik.model.meshes`).
        srdf: an SRDF file or text (`bioik.model.srdf`), checked against the model and kept
            as `robot.srdf`; its disabled collision pairs join the allowed-collision matrix.

    Returns:
        The `Robot`.
    """
    robot = _load(x, group, frozen, mesh_dirs, allow_outside)
    if srdf is not None:
        from bioik.model.srdf import parse_srdf  # imported where used: most loads have no SRDF

        robot.srdf = parse_srdf(srdf, robot.model)
    return robot


def _load(x, group, frozen, mesh_dirs, allow_outside) -> Robot:
    if isinstance(x, RobotModel):
        return Robot(x, group, frozen=frozen)
    if isinstance(x, str) and x in ROBOTS:
        entry = ROBOTS[x]
        model = parse_urdf(urdf_path(x), mesh_dirs=mesh_dirs, allow_outside=allow_outside)
        return Robot(model, group, groups=entry["groups"], default_group=entry["default_group"], frozen=frozen, source=x)
    if looks_like_text(x):
        return Robot(parse_urdf(x, mesh_dirs=mesh_dirs, allow_outside=allow_outside), group, frozen=frozen)
    if not isinstance(x, (str, os.PathLike)):
        raise TypeError(f"cannot load a robot from a {type(x).__name__}; expected a bundled robot name, snakeN, "
                        "a URDF path, URDF text or bytes, or a RobotModel")
    text = str(x)
    if not is_file(Path(text)) and "/" not in text and not text.endswith(".urdf"):
        m = re.fullmatch(r"snake(\d+)", text)
        if m is not None:
            if int(m.group(1)) < 1:
                raise UnknownNameError(f"robot {text!r}: a snake needs ≥ 1 joint (expected snakeN with N ≥ 1, e.g. snake30)")
            return snake(int(m.group(1)), group=group, frozen=frozen)
        raise UnknownNameError(f"unknown robot {text!r}: not a bundled robot ({suggest(text, ROBOTS)}), not snakeN and not a URDF file")
    return Robot(parse_urdf(x, mesh_dirs=mesh_dirs, allow_outside=allow_outside), group, frozen=frozen, source=text)
