"""A MoveIt config package in one call: the robot, its SRDF and per-group solver settings.

A MoveIt config (as MoveIt Setup Assistant writes it) is a folder with ``config/NAME.srdf``,
``config/kinematics.yaml`` and a ``.setup_assistant`` file naming the URDF (its package and
path inside it, xacro arguments included). `load_moveit_config` reads them the way a
MoveIt user has them: the URDF's package is found as ``package://`` is (beside the config
package, in ``ROS_PACKAGE_PATH`` / ``AMENT_PREFIX_PATH``, or in ``package_dirs``); without a
``.setup_assistant`` the URDF is the one ``config/`` holds. A xacro file is expanded when the
``xacro`` package is installed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bioik.errors import MoveItConfigError as MoveItConfigError
from bioik.kinematics.robot import Robot
from bioik.model.meshes import package_folders, package_hint
from bioik.moveit import KinematicsConfig
from bioik.moveit_config import KinematicsConfigError
from bioik.robots import load_robot


@dataclass
class MoveItConfig:
    """What a MoveIt config package gives: the robot (with the SRDF's groups), the files it
    came from, and the solver settings of each group in kinematics.yaml.

    `robot(group)` is the robot with that group active; `settings(group)` its
    `KinematicsConfig` (bioik's defaults for a group kinematics.yaml does not list).

    Attributes:
        folder: the config package's folder.
        urdf: the URDF (or xacro) file the robot came from.
        srdf: the SRDF file.
        base: the robot with the SRDF's default group active.
        kinematics: group name → its kinematics.yaml settings.
    """

    folder: Path
    urdf: Path
    srdf: Path
    base: Robot
    kinematics: dict[str, KinematicsConfig] = field(default_factory=dict)

    @property
    def groups(self) -> list[str]:
        """The SRDF's usable groups."""
        return list(self.base.semantics.groups) if self.base.semantics is not None else []

    def robot(self, group: str | None = None) -> Robot:
        """The robot with a group active.

        Args:
            group: an SRDF group name (None: the SRDF's default, every joint but the passive ones).

        Returns:
            The `Robot`.
        """
        return self.base if group is None else self.base.with_group(group)

    def settings(self, group: str) -> KinematicsConfig:
        """kinematics.yaml's settings of a group.

        Args:
            group: an SRDF group name (one kinematics.yaml does not list gets bioik's defaults).

        Returns:
            The `KinematicsConfig`.
        """
        self.base.with_group(group)  # an unknown group is named here, with the known ones
        return self.kinematics.get(group, KinematicsConfig())


def load_moveit_config(path: str | os.PathLike, *, package_dirs: Mapping[str, str | os.PathLike] | None = None,
                       xacro_args: Mapping[str, str] | None = None) -> MoveItConfig:
    """Load a MoveIt config package folder (see the module docstring).

    Args:
        path: the config package's folder (the one holding ``config/`` and, usually,
            ``.setup_assistant``).
        package_dirs: {package name: folder} for packages not found otherwise (the URDF's
            description package, its mesh packages).
        xacro_args: xacro arguments (over those ``.setup_assistant`` names).

    Returns:
        The `MoveItConfig`.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise MoveItConfigError(f"MoveIt config {str(folder)!r} is not a folder; expected a MoveIt config package folder")
    assistant = _read_yaml(folder / ".setup_assistant") if (folder / ".setup_assistant").is_file() else None
    entry = (assistant or {}).get("moveit_setup_assistant_config", {}) if isinstance(assistant, Mapping) else {}
    dirs = dict(package_dirs or {})
    urdf, args = _urdf(folder, entry.get("URDF") or {}, dirs)
    srdf = _srdf(folder, entry.get("SRDF") or {})
    text = _expand(urdf, {**args, **(xacro_args or {})}) if urdf.name.endswith(".xacro") else None
    if text is None:
        base = load_robot(urdf, srdf=srdf, package_dirs=dirs)
    else:  # the expanded text's relative meshes lie beside the xacro
        base = load_robot(text, srdf=srdf, package_dirs=dirs, mesh_dirs=[urdf.parent])
    return MoveItConfig(folder, urdf, srdf, base, _kinematics(folder / "config" / "kinematics.yaml"))


def _urdf(folder: Path, entry: Mapping[str, Any], dirs: dict[str, Any]) -> tuple[Path, dict[str, str]]:
    """The URDF (or xacro) file and its xacro arguments."""
    if entry.get("package") and entry.get("relative_path"):
        package = str(entry["package"])
        found = package_folders(package, folder, dirs) + _beside(folder, package)
        if not found:
            raise MoveItConfigError(f"{folder / '.setup_assistant'}: the URDF is in package {package!r}, which was not found: "
                                    f"{package_hint(package, folder)}, or its folder beside {str(folder)!r}")
        dirs.setdefault(package, found[0])
        path = found[0] / str(entry["relative_path"])
        if not path.is_file():
            raise MoveItConfigError(f"{folder / '.setup_assistant'}: URDF {str(path)!r} does not exist; expected the file "
                                    f"relative_path {entry['relative_path']!r} names in package {package!r} ({found[0]})")
        return path, _args(str(entry.get("xacro_args") or ""))
    config = folder / "config"
    files = sorted(config.glob("*.urdf")) + sorted(config.glob("*.urdf.xacro")) + sorted(config.glob("*.xacro"))
    files = list(dict.fromkeys(files))
    if not files:
        raise MoveItConfigError(f"{folder}: no .setup_assistant naming the URDF and no URDF or xacro in {config}; "
                                "expected a MoveIt config package folder")
    return files[0], {}


def _srdf(folder: Path, entry: Mapping[str, Any]) -> Path:
    if entry.get("relative_path"):
        path = folder / str(entry["relative_path"])
        if not path.is_file():
            raise MoveItConfigError(f"{folder / '.setup_assistant'}: SRDF {str(path)!r} does not exist")
        return path
    files = sorted((folder / "config").glob("*.srdf"))
    if len(files) != 1:
        found = ", ".join(f.name for f in files) or "none"
        raise MoveItConfigError(f"{folder / 'config'}: expected one .srdf file, found {found}")
    return files[0]


def _beside(folder: Path, package: str) -> list[Path]:
    """Packages next to the config package (a workspace's src/ holds both)."""
    parent = folder.resolve().parent
    out = [parent / package] if (parent / package).is_dir() else []
    for sibling in sorted(p for p in parent.iterdir() if p.is_dir()):
        xml = sibling / "package.xml"
        if xml.is_file() and f"<name>{package}</name>" in xml.read_text(errors="replace").replace(" ", ""):
            out.append(sibling)
    return list(dict.fromkeys(out))


def _args(text: str) -> dict[str, str]:
    """xacro arguments written as `name:=value name2:=value2`."""
    return dict(a.split(":=", 1) for a in text.split() if ":=" in a)


def _expand(path: Path, args: dict[str, str]) -> str:
    try:
        import xacro
    except ImportError:
        raise MoveItConfigError(f"{path} is a xacro file: expanding it needs the xacro package (pip install xacro), "
                                "or give the expanded URDF") from None
    try:
        return xacro.process_file(str(path), mappings=args).toxml()
    except Exception as e:  # noqa: BLE001 — xacro raises many kinds; the message says what failed
        raise MoveItConfigError(f"{path}: xacro could not expand it: {e}") from None


def _read_yaml(path: Path) -> Any:
    try:
        import yaml
    except ImportError:
        raise MoveItConfigError(f"{path}: reading a MoveIt config needs PyYAML (pip install pyyaml, or bioik[moveit])") from None
    try:
        return yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise MoveItConfigError(f"{path}: not valid YAML: {e}") from None


def _kinematics(path: Path) -> dict[str, KinematicsConfig]:
    """Each group entry of kinematics.yaml (ROS 2's `/**: ros__parameters:` wrapping unwrapped)."""
    if not path.is_file():
        return {}
    data = _read_yaml(path) or {}
    while isinstance(data, Mapping) and len(data) == 1 and next(iter(data)) in ("/**", "ros__parameters", "robot_description_kinematics"):
        data = next(iter(data.values())) or {}
    if not isinstance(data, Mapping):
        raise KinematicsConfigError(f"{path}: expected a table of groups; got {type(data).__name__}")
    return {name: KinematicsConfig.from_dict(data, str(path), group=name) for name, entry in data.items() if isinstance(entry, Mapping)}
