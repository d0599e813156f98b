"""Bundled robots: URDFs written from published kinematic parameters, with groups.

`names()` lists them, `urdf_path(name)` gives the file (so other tools can load the
same model), `snake(n)` builds an n-joint hyper-redundant chain, and `load_robot` (also
`bioik.load_robot`) is the one loader of robots: bundled names, ``snakeN``, URDF files and
text, and models.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from bioik.kinematics.robot import Robot
from bioik.model.group import GroupSpec
from bioik.model.names import UnknownNameError, suggest
from bioik.model.robot_model import RobotModel
from bioik.model.urdf import parse_urdf
from bioik.model.virtual_joint import add_virtual_joint
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
               srdf: str | bytes | os.PathLike | None = None,
               package_dirs: Mapping[str, str | os.PathLike] | None = None) -> Robot:
    """Load a robot: a bundled name, ``snakeN``, a URDF path, URDF text or bytes, or a
    `RobotModel`.

    Args:
        x: a bundled name (see `bioik.robots.names()`), ``snakeN`` (an N-joint chain, as
            `snake(N)`), a URDF path, URDF text or bytes, or a `RobotModel`. An unknown
            name raises UnknownNameError listing the closest bundled names.
        group: None (the robot's default group; for a plain URDF every joint), a group
            name (a bundled robot's or the SRDF's), a list of joint names, a list of
            (base, tip) link pairs, or a dict with "chains", "joints" and/or "tips".
        frozen: values (by variable name) of the joints outside the group.
        mesh_dirs: folders, beside the URDF's own, where the mesh files it names may lie.
        allow_outside: trust the URDF to name any file (see `bioik.model.meshes`).
        srdf: an SRDF file or text (`bioik.model.srdf`). Its groups become selectable by
            name, its end effectors give the groups' tips (and, with no group named, the
            robot's), its group states are `robot.named_configuration(name)`, a floating or
            planar virtual joint becomes the robot's base, passive joints are left out of
            every group, and disabled collision pairs join the allowed-collision matrix.
            Parts that do not fit the URDF are left out with an `SRDFWarning`; selecting one
            raises an `SRDFError` that says why.
        package_dirs: {package name: folder} for ``package://`` references that are not
            found the way ROS finds them (see `bioik.model.meshes.package_folders`).

    Returns:
        The `Robot`.
    """
    model, groups, default_group, source = _load(x, mesh_dirs, allow_outside, package_dirs)
    if srdf is None:
        return Robot(model, group, groups=groups, default_group=default_group, frozen=frozen, source=source)
    from bioik.model.srdf import parse_srdf, semantics  # imported where used: most loads have no SRDF

    parsed = parse_srdf(srdf)
    for v in parsed.virtual_joints:
        try:
            model = add_virtual_joint(model, v.name, v.type, v.parent_frame, v.child_link)
        except ValueError as e:
            from bioik.model.srdf import SRDFError

            raise SRDFError(f"{parsed.origin} line {v.line}: {e}") from None
    meaning = semantics(parsed, model)
    if meaning.problems:
        from bioik.model.srdf import SRDFWarning

        shown = "; ".join(meaning.problems[:6]) + (f"; and {len(meaning.problems) - 6} more" if len(meaning.problems) > 6 else "")
        warnings.warn(f"{parsed.origin} does not fit robot {model.name!r} everywhere; left out: {shown}", SRDFWarning, stacklevel=2)
    return Robot(model, group, groups={**groups, **meaning.groups}, default_group=default_group, frozen=frozen, source=source,
                 srdf=parsed, semantics=meaning)


def _load(x, mesh_dirs, allow_outside, package_dirs) -> tuple:
    """(model, named groups, default group, source) of what `load_robot` was given."""
    options = {"mesh_dirs": mesh_dirs, "allow_outside": allow_outside, "package_dirs": package_dirs}
    if isinstance(x, RobotModel):
        return x, {}, None, None
    if isinstance(x, str) and x in ROBOTS:
        entry = ROBOTS[x]
        return parse_urdf(urdf_path(x), **options), entry["groups"], entry["default_group"], x
    if looks_like_text(x):
        return parse_urdf(x, **options), {}, None, None
    if not isinstance(x, (str, os.PathLike)):
        raise TypeError(f"cannot load a robot from a {type(x).__name__}; expected a bundled robot name, snakeN, "
                        "a URDF path, URDF text or bytes, or a RobotModel")
    text = str(x)
    if not is_file(Path(text)) and "/" not in text and not text.endswith(".urdf"):
        m = re.fullmatch(r"snake(\d+)", text)
        if m is not None:
            if int(m.group(1)) < 1:
                raise UnknownNameError(f"robot {text!r}: a snake needs ≥ 1 joint (expected snakeN with N ≥ 1, e.g. snake30)")
            n = int(m.group(1))
            return parse_urdf(snake_urdf(n)), snake_groups(n), "chain", f"snake({n})"
        raise UnknownNameError(f"unknown robot {text!r}: not a bundled robot ({suggest(text, ROBOTS)}), not snakeN and not a URDF file")
    return parse_urdf(x, **options), {}, None, text
