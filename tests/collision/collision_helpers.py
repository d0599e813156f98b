"""Shared test helpers: sampling collision geometry, a mesh robot, a stand-in Scene."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import trimesh

import bioik
from bioik.collision.link_geometry import Piece

MESH_URDF = """<robot name="meshbot">
  <link name="base"><collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <link name="arm">
    <collision><origin xyz="0 0 0.2" rpy="0.3 0 0"/><geometry><mesh filename="part.stl" scale="1 1 2"/></geometry></collision>
  </link>
  <link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.05"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="j2" type="fixed"><parent link="arm"/><child link="tip"/><origin xyz="0 0 0.5"/></joint>
</robot>
"""


def mesh_robot(folder: Path) -> bioik.Robot:
    """A two-link robot whose arm is a (scaled, rotated) mesh: a bent tube."""
    part = trimesh.creation.annulus(r_min=0.02, r_max=0.05, height=0.15)
    part.apply_transform(trimesh.transformations.rotation_matrix(0.4, [0, 1, 0]))
    part.export(folder / "part.stl")
    (folder / "meshbot.urdf").write_text(MESH_URDF)
    return bioik.load_robot(folder / "meshbot.urdf")


def piece_points(p: Piece, rng: np.random.Generator, n: int = 400) -> np.ndarray:
    """Points on the true surface and inside of a piece, in the link frame."""
    if p.kind == "box":
        h = 0.5 * np.asarray(p.size)
        inside = rng.uniform(-h, h, (n, 3))
        surf = rng.uniform(-h, h, (n, 3))
        k = rng.integers(0, 3, n)
        surf[np.arange(n), k] = h[k] * rng.choice([-1, 1], n)
        pts = np.r_[inside, surf, np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h]
    elif p.kind == "cylinder":
        r, length = p.size
        a = rng.uniform(0, 2 * np.pi, 2 * n)
        rad = np.r_[np.full(n, r), r * np.sqrt(rng.uniform(0, 1, n))]
        z = np.r_[rng.uniform(-length / 2, length / 2, n), rng.choice([-length / 2, length / 2], n)]
        pts = np.c_[rad * np.cos(a), rad * np.sin(a), z]
    elif p.kind == "sphere":
        d = rng.normal(size=(2 * n, 3))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        pts = d * np.r_[np.full(n, p.size[0]), p.size[0] * rng.uniform(0, 1, n) ** (1 / 3)][:, None]
    else:
        m = p.mesh
        surf = trimesh.sample.sample_surface(m, n, seed=int(rng.integers(1 << 30)))[0]
        vol = trimesh.sample.volume_mesh(m, 4 * n) if m.is_watertight else np.zeros((0, 3))
        pts = np.r_[m.vertices, surf, vol]
    return pts @ p.origin[:3, :3].T + p.origin[:3, 3]


@dataclass
class Obstacle:
    name: str
    shape: object
    pose: np.ndarray


@dataclass
class FakeScene:
    """The duck-typed interface of bioik.scene.Scene that the checker relies on."""

    obstacles: dict = field(default_factory=dict)
    layout_version: int = 0
    pose_version: int = 0

    def add(self, name: str, shape, pose=None) -> None:
        self.obstacles[name] = Obstacle(name, shape, np.eye(4) if pose is None else np.asarray(pose, dtype=float))
        self.layout_version += 1

    def remove(self, name: str) -> None:
        del self.obstacles[name]
        self.layout_version += 1

    def move(self, name: str, pose) -> None:
        self.obstacles[name].pose = np.asarray(pose, dtype=float)
        self.pose_version += 1


def translation(x: float, y: float, z: float) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T
