"""Mesh references of a URDF → files, confined to the folders the user allows.

A URDF names mesh files as relative paths (to the URDF's folder), ``package://name/rest``,
``file://`` URIs or absolute paths. A URDF from an untrusted source could point them
anywhere (``../../etc/passwd``, ``/home/you/.ssh/id_rsa``), and whatever later reads the
mesh would read that file. So a reference is resolved only inside the *roots* — the URDF's
folder and the mesh folders the user gives — after following symbolic links; anything else
is refused unless the user passes ``allow_outside=True``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bioik.model.urdf_source import URDFError

PathLike = str | os.PathLike


def mesh_candidates(reference: str, urdf_dir: PathLike | None = None, mesh_dirs: Sequence[PathLike] = (),
                    allow_outside: bool = False) -> list[Path]:
    """The files `reference` may name, in search order (they need not exist).

    Relative paths are taken from the URDF's folder (from each mesh folder for URDF text);
    ``package://name/rest`` is looked up as root/name/rest, then root/rest (a root that is
    the package itself), in the URDF's folder and then each mesh folder. URDFError for a
    candidate outside every root (unless `allow_outside`) and for other URI schemes.
    """
    roots = [Path(d).resolve() for d in ([urdf_dir] if urdf_dir is not None else []) + list(mesh_dirs)]
    scheme = urlsplit(reference).scheme if "://" in reference else ""
    if scheme == "package":
        package, _, rest = reference[len("package://"):].partition("/")
        candidates = [root / package / rest for root in roots] + [root / rest for root in roots]
    elif scheme in ("file", ""):
        path = Path(unquote(reference[len("file://"):]) if scheme else reference)
        bases = roots[:1] if urdf_dir is not None else roots
        candidates = [path] if path.is_absolute() else [base / path for base in bases]
    else:
        raise URDFError(f"mesh {reference!r} has the URI scheme {scheme}://; expected a relative path, package://, file:// or an absolute path")
    candidates = [c.resolve() for c in candidates]
    if not allow_outside:
        for c in candidates:
            if not any(c.is_relative_to(root) for root in roots):
                where = ", ".join(str(r) for r in roots) or "none: URDF text and no mesh_dirs"
                raise URDFError(f"mesh {reference!r} resolves to {str(c)!r}, outside the URDF's folder and the mesh folders ({where}); "
                                "expected a mesh inside them: pass its folder in mesh_dirs, or allow_outside=True to trust this URDF")
    return candidates


def resolve_mesh(reference: str, urdf_dir: PathLike | None = None, mesh_dirs: Sequence[PathLike] = (),
                 allow_outside: bool = False) -> Path:
    """The existing file `reference` names (see `mesh_candidates`); URDFError if there is none."""
    candidates = mesh_candidates(reference, urdf_dir, mesh_dirs, allow_outside)
    for c in candidates:
        if c.is_file():
            return c
    looked = ", ".join(str(c) for c in candidates) or "nowhere: URDF text and no mesh_dirs"
    raise URDFError(f"mesh {reference!r} not found; looked at {looked}")
