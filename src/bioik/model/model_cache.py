"""Parsed robot models kept on disk, so a warm start skips the URDF parser.

yourdfpy imports trimesh, which takes about a second; a parsed `RobotModel` takes 0.3 ms
to unpickle. A model is a pure function of the URDF bytes, where it was read from (mesh
references resolve against that folder and `mesh_dirs`), the mesh files those references
find, and bioik's model code — so the key hashes all of them: a changed URDF, a mesh file
that appears, moves or changes, or an edited `bioik.model` never meet an old entry. Only
models that parsed cleanly are stored; a URDF with an error is parsed (and refused) every
time. Entries live under `bioik._cache_dir.cache_dir("models")`, written whole.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

from lxml import etree

from bioik import _cache_dir
from bioik.model.meshes import PACKAGE_PATH_VARIABLES
from bioik.model.robot_model import RobotModel

_FORMAT = 1


@cache
def _code_stamp() -> str:
    """Hash of bioik.model's sources (a new version of the code makes new keys)."""
    h = hashlib.sha256()
    for p in sorted(Path(__file__).parent.rglob("*.py")):
        h.update(p.name.encode() + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def model_key(text: bytes, origin: str, folder: Path | None, root: etree._Element, mesh_dirs: Sequence[str | os.PathLike],
              allow_outside: bool, mesh_file, package_dirs: Mapping[str, str | os.PathLike] | None = None) -> str:
    """The cache key of a URDF: `mesh_file(reference)` is the file a mesh reference finds (or None)."""
    packages = sorted((k, str(v)) for k, v in (package_dirs or {}).items())
    env = [os.environ.get(v, "") for v in PACKAGE_PATH_VARIABLES]
    h = hashlib.sha256(f"{_FORMAT}|{_code_stamp()}|{origin}|{folder}|{[str(d) for d in mesh_dirs]}|{allow_outside}|{packages}|{env}|".encode())
    h.update(text)
    for el in root.iter("mesh"):
        found = mesh_file(el.get("filename") or "")
        stat = found.stat() if found is not None else None
        h.update(f"|{found}|{stat and stat.st_size}|{stat and stat.st_mtime_ns}".encode())
    return h.hexdigest()[:32]


def load(key: str) -> RobotModel | None:
    """The stored model of `key`, or None (missing, unreadable, or not a RobotModel)."""
    try:
        with open(_cache_dir.cache_dir("models") / f"{key}.pkl", "rb") as f:
            model = pickle.load(f)
    except Exception:  # noqa: BLE001 — a damaged entry only means parsing again
        return None
    return model if isinstance(model, RobotModel) else None


def store(key: str, model: RobotModel) -> None:
    """Store `model` under `key`; silently skipped where the cache cannot be written."""
    _cache_dir.write_whole(_cache_dir.cache_dir("models") / f"{key}.pkl",
                           lambda f: pickle.dump(model, f, protocol=pickle.HIGHEST_PROTOCOL))
