"""Mesh references of a URDF → files, confined to the folders the user allows.

A URDF names mesh files as relative paths (to the URDF's folder), ``package://name/rest``,
``file://`` URIs or absolute paths. A package is found the way ROS finds it, with no
argument for the usual layouts (`package_folders`): a folder given for it in
``package_dirs``, ``ROS_PACKAGE_PATH`` (ROS 1), ``AMENT_PREFIX_PATH`` (``share/NAME``, ROS 2
and pip packages built for it), or a folder above the URDF named after the package or
holding a ``package.xml`` that names it.

A URDF from an untrusted source could point anywhere (``../../etc/passwd``,
``/home/you/.ssh/id_rsa``), and whatever later reads the mesh would read that file. So a
reference is resolved only inside the *roots* — the URDF's folder, the mesh folders the
user gives and, for ``package://``, the folders found for that package — after following
symbolic links; anything else is refused unless the user passes ``allow_outside=True``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bioik.model.urdf_source import URDFError

PathLike = str | os.PathLike
#: Environment variables that list where ROS packages are.
PACKAGE_PATH_VARIABLES = ("ROS_PACKAGE_PATH", "AMENT_PREFIX_PATH")
#: How deep below a ROS_PACKAGE_PATH entry a package folder is looked for (rospack crawls
#: every level; a source workspace keeps packages one or two levels down).
_CRAWL_DEPTH = 3
_PACKAGE_NAME = re.compile(rb"<name>\s*([^<\s]+)\s*</name>")


def package_folders(package: str, urdf_dir: PathLike | None = None,
                    package_dirs: Mapping[str, PathLike] | None = None) -> list[Path]:
    """Folders that may hold a ROS package, in search order (existing ones only):
    ``package_dirs[package]``; each ``ROS_PACKAGE_PATH`` entry that is the package (its
    ``package.xml`` names it) or holds it up to three levels down; ``share/package`` of
    each ``AMENT_PREFIX_PATH`` prefix; and the folders above the URDF named `package` or
    holding a ``package.xml`` that names it.

    Args:
        package: the package name (of ``package://package/...``).
        urdf_dir: the URDF's folder (None for URDF text).
        package_dirs: {package name: folder} given by the user.

    Returns:
        The folders, resolved, first match first.
    """
    found: list[Path] = []
    if package_dirs and package in package_dirs:
        found.append(Path(package_dirs[package]))
    for entry in _env_list("ROS_PACKAGE_PATH"):
        found.extend(_crawl(entry, package))
    for prefix in _env_list("AMENT_PREFIX_PATH"):
        found.append(Path(prefix) / "share" / package)
    if urdf_dir is not None:
        for folder in (Path(urdf_dir).resolve(), *Path(urdf_dir).resolve().parents):
            if folder.name == package or _names_package(folder, package):
                found.append(folder)
    return list(dict.fromkeys(f.resolve() for f in found if f.is_dir()))


def package_hint(package: str, urdf_dir: PathLike | None = None) -> str:
    """Where `package` was looked for and the argument that names it, for error messages."""
    env = "; ".join(f"{v}={os.environ.get(v, '')!r}" for v in PACKAGE_PATH_VARIABLES)
    above = "the folders above the URDF" if urdf_dir is not None else "no folders above a URDF (URDF text)"
    return (f"package {package!r} was looked for in package_dirs, {env}, and {above} (one named {package!r} "
            f"or holding a package.xml that names it); pass load_robot(..., package_dirs={{{package!r}: '/path/to/{package}'}})")


def mesh_candidates(reference: str, urdf_dir: PathLike | None = None, mesh_dirs: Sequence[PathLike] = (),
                    allow_outside: bool = False, package_dirs: Mapping[str, PathLike] | None = None) -> list[Path]:
    """The files `reference` may name, in search order (they need not exist).

    Relative paths are taken from the URDF's folder (from each mesh folder for URDF text);
    ``package://name/rest`` is looked up as folder/rest in each folder found for the package
    (`package_folders`), then as root/name/rest and root/rest in the URDF's folder and each
    mesh folder. URDFError for a candidate outside every root (unless `allow_outside`) and
    for other URI schemes.
    """
    roots = [Path(d).resolve() for d in ([urdf_dir] if urdf_dir is not None else []) + list(mesh_dirs)]
    scheme = urlsplit(reference).scheme if "://" in reference else ""
    if scheme == "package":
        package, _, rest = reference[len("package://"):].lstrip("/").partition("/")  # package:///name/… as package://name/…
        packages = package_folders(package, urdf_dir, package_dirs)
        roots += packages
        candidates = [p / rest for p in packages] + [root / package / rest for root in roots] + [root / rest for root in roots]
    elif scheme in ("file", ""):
        path = Path(unquote(reference[len("file://"):]) if scheme else reference)
        bases = roots[:1] if urdf_dir is not None else roots
        candidates = [path] if path.is_absolute() else [base / path for base in bases]
    else:
        raise URDFError(f"mesh {reference!r} has the URI scheme {scheme}://; expected a relative path, package://, file:// or an absolute path")
    candidates = list(dict.fromkeys(c.resolve() for c in candidates))
    if not allow_outside:
        for c in candidates:
            if not any(c.is_relative_to(root) for root in roots):
                where = ", ".join(str(r) for r in roots) or "none: URDF text and no mesh_dirs"
                raise URDFError(f"mesh {reference!r} resolves to {str(c)!r}, outside the URDF's folder and the mesh folders ({where}); "
                                "expected a mesh inside them: pass its folder in mesh_dirs, or allow_outside=True to trust this URDF")
    return candidates


def resolve_mesh(reference: str, urdf_dir: PathLike | None = None, mesh_dirs: Sequence[PathLike] = (),
                 allow_outside: bool = False, package_dirs: Mapping[str, PathLike] | None = None) -> Path:
    """The existing file `reference` names (see `mesh_candidates`); URDFError if there is
    none, naming the places looked at (and, for ``package://``, how to name the package)."""
    candidates = mesh_candidates(reference, urdf_dir, mesh_dirs, allow_outside, package_dirs)
    for c in candidates:
        if c.is_file():
            return c
    looked = ", ".join(str(c) for c in candidates) or "nowhere: URDF text and no mesh_dirs"
    hint = ""
    if reference.startswith("package://"):
        package = reference[len("package://"):].lstrip("/").partition("/")[0]
        if not package_folders(package, urdf_dir, package_dirs):
            hint = f"; {package_hint(package, urdf_dir)}"
    raise URDFError(f"mesh {reference!r} not found; looked at {looked}{hint}")


def _env_list(variable: str) -> list[str]:
    return [p for p in os.environ.get(variable, "").split(os.pathsep) if p]


def _names_package(folder: Path, package: str) -> bool:
    """Whether folder/package.xml names `package`."""
    return _package_xml_name(folder / "package.xml") == package


@lru_cache(maxsize=4096)
def _package_xml_name(path: Path) -> str | None:
    try:
        m = _PACKAGE_NAME.search(path.read_bytes())
    except OSError:
        return None
    return m.group(1).decode() if m else None


def _crawl(entry: str, package: str) -> list[Path]:
    """Folders at most `_CRAWL_DEPTH` levels below a ROS_PACKAGE_PATH entry (the entry
    included) that are `package`: a package.xml naming it, or the folder's name when it
    has no package.xml."""
    out = []
    level = [Path(entry)]
    for _ in range(_CRAWL_DEPTH + 1):
        below = []
        for folder in level:
            name = _package_xml_name(folder / "package.xml")
            if name == package or (name is None and folder.name == package and folder != Path(entry)):
                out.append(folder)
            elif name is None:  # a package's own subfolders hold no other packages
                try:
                    below += [c for c in folder.iterdir() if c.is_dir() and not c.name.startswith(".")]
                except OSError:
                    pass
        level = below
    return out
