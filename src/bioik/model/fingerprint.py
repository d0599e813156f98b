"""Content hashes of robot models: equal for the same URDF parsed twice, different after
any edit to what the model holds (a link, joint origin, axis, limit, mimic, collision shape).

The hash walks the model's dataclasses field by field in declaration order, each value
tagged with its type: strings and ints as text, floats exactly (their IEEE 754 bytes),
numpy arrays by dtype, shape and bytes. `Geometry.path` (where a mesh file was found on
this machine) is left out; the mesh's `filename` as written in the URDF is in, the mesh
file's content is not (meshes are not part of the kinematics).
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from typing import Any

import numpy as np

from bioik.model.robot_model import Geometry, RobotModel

#: Fields that say where a file was found, not what the model is.
_LEFT_OUT = {(Geometry, "path")}


def feed(h: Any, value: Any) -> None:
    """Add `value` to the hash `h` unambiguously (type tag, then length or exact bytes)."""
    if value is None:
        h.update(b"N")
    elif isinstance(value, bool):
        h.update(b"T" if value else b"F")
    elif isinstance(value, (int, np.integer)):
        h.update(b"i%d;" % int(value))
    elif isinstance(value, (float, np.floating)):
        h.update(b"f" + struct.pack("<d", float(value)))
    elif isinstance(value, str):
        data = value.encode()
        h.update(b"s%d:" % len(data) + data)
    elif isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value).tobytes()
        h.update(f"a{value.dtype.str}{value.shape}{len(data)}:".encode() + data)
    elif isinstance(value, (tuple, list)):
        h.update(b"l%d:" % len(value))
        for item in value:
            feed(h, item)
    elif dataclasses.is_dataclass(value):
        cls = type(value)
        feed(h, cls.__name__)
        for f in dataclasses.fields(cls):
            if (cls, f.name) not in _LEFT_OUT:
                feed(h, f.name)
                feed(h, getattr(value, f.name))
    else:
        raise TypeError(f"cannot hash a {type(value).__name__} in a robot model")


def model_fingerprint(model: RobotModel) -> str:
    """Hex SHA-256 of the model's name, links, joints (with their motions) and variables."""
    h = hashlib.sha256(b"bioik-model-1")
    for part in (model.name, model.links, model.joints, model.variables):
        feed(h, part)
    return h.hexdigest()
