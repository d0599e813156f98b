"""Bundled benchmark scenes: the eight EBIKE scenarios of [E 4] for `elise_ur10`.

    s = bioik.scenes.load("HydrogenTank")
    s.scene                                  # a fresh bioik.Scene (obstacles built in code)
    s.opening                                # Opening(point, axis, diameter) or None
    targets = s.sample_targets(100, rng=0)   # (100, 4, 4) endoscope_tip poses on the surfaces
    stored = s.targets()                     # the 1000 stored targets, each with a witness

Geometry, placement and the source of every number: `bioik.scenes.ebike`.

The tip touches its target, so the endoscope's last segment (TIP_LINK, the 5 cm rod that
ends in the tip) may touch every obstacle but the pedestal and the floor: `load` allows
those contacts in the scene (`Scene.allow_contact`), for the collision costs and the
exact check alike. That opens no loophole for the stored targets: the pose goal fixes the
tip frame, hence the whole rod, and each stored target was kept only if the rod, pulled
back TIP_CONTACT along the tool axis, touches nothing (`bioik.bench.scenes.tip_clear`).
The endoscope is 8 mm thick: a sphere cover that passes a 3.5 cm opening needs thinner
spheres than the default, ENDOSCOPE_COVER (per-link settings for
`bioik.collision.sphere_model(robot, links=ENDOSCOPE_COVER)`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bioik.model.names import UnknownNameError, suggest
from bioik.scene import Scene
from bioik.scenes import ebike
from bioik.scenes.surfaces import Patch, sample_points, tool_poses

ROBOT = "elise_ur10"
TIP = "endoscope_tip"
#: The link that ends in the tip; it may touch the target objects (see the module docstring).
TIP_LINK = "endoscope_link_3"
#: How far the tip link is pulled back along the tool axis when its clearance is checked (m).
TIP_CONTACT = 0.001
#: Obstacles nothing may touch, the tip included (everything else is a target object).
SUPPORT = ("pedestal", "floor")
#: Sphere cover (tolerance m, most spheres) of the endoscope's links: 3 mm overshoot.
ENDOSCOPE_COVER = {"endoscope_link_1": (0.003, 40), "endoscope_link_2": (0.003, 12), "endoscope_link_3": (0.003, 12)}
#: Where the stored targets live: one .npz per scenario.
TARGET_DIR = Path(__file__).parent / "targets"

#: A pose clear of every scenario's obstacles: the UR10's upright pose (upper arm and
#: forearm straight up), the endoscope level along +y about 1.4 m above the base.
READY = np.array([0.0, -np.pi / 2, 0.0, -np.pi / 2, 0.0, 0.0, 0.0, 0.0, 0.0])


@dataclass(frozen=True)
class Opening:
    """A round hole.

    Attributes:
        point: its centre on the outer face.
        axis: the unit axis into the object.
        diameter: metres.
    """

    point: tuple[float, float, float]
    axis: tuple[float, float, float]
    diameter: float


@dataclass(frozen=True)
class TargetSet:
    """Stored targets of a scenario.

    Attributes:
        poses: (n, 4, 4) endoscope_tip poses.
        witnesses: (n, dof) for each pose a collision-free configuration of elise_ur10 that
            reaches it.
        info: how they were made (candidates tried, dropped and why, search budget and seed).
    """

    poses: np.ndarray
    witnesses: np.ndarray
    info: dict

    def __len__(self) -> int:
        return len(self.poses)


@dataclass(frozen=True)
class Scenario:
    """One scenario: its obstacles, its opening (if any) and the surfaces targets lie on.

    Attributes:
        name: the scenario's name.
        scene: its obstacles, a `bioik.Scene`.
        opening: its round hole, or None.
        target_surfaces: a description of the surfaces the targets lie on.
        patches: the target surfaces as patches, for sampling.
    """

    name: str
    scene: Scene
    opening: Opening | None
    target_surfaces: str
    patches: tuple[Patch, ...] = field(repr=False)

    def sample_targets(self, n: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
        """Poses of elise_ur10's endoscope_tip: on a target surface (uniform by area) with the z
        axis pointing into it, or for Random the tip's pose at uniform random configurations.

        Args:
            n: how many.
            rng: a numpy Generator, a seed or None.

        Returns:
            (n, 4, 4) poses in the base frame.
        """
        rng = np.random.default_rng(rng)
        n = int(n)
        if not self.patches:
            from bioik.robots import load_robot

            robot = load_robot(ROBOT)
            return robot.fk(robot.random_configuration(rng, n), [TIP])[:, 0]
        return tool_poses(*sample_points(self.patches, n, rng), rng)

    def targets(self) -> TargetSet:
        """The scenario's stored targets (made by benchmarks/scene_targets.py).

        Returns:
            The `TargetSet`; a FileNotFoundError names the file when it is missing.
        """
        path = TARGET_DIR / f"{self.name}.npz"
        if not path.is_file():
            raise FileNotFoundError(f"no stored targets for scenario {self.name!r}: {path} is missing "
                                    "(make them with benchmarks/scene_targets.py)")
        with np.load(path, allow_pickle=False) as f:
            info = json.loads(str(f["info"]))
            return TargetSet(f["poses"].copy(), f["witnesses"].copy(), info)


def _on_stand(build, surfaces: str):
    """A builder for an object on the floor, the robot on its pedestal: (patches, opening, surfaces)."""
    def builder(scene: Scene):
        ebike.stand(scene)
        patches = build(scene)
        return patches, None, surfaces

    return builder


def _tank(diameter: float):
    def builder(scene: Scene):
        ebike.stand(scene)
        patches, (point, axis, d) = ebike.tank(scene, diameter)
        return patches, Opening(point, axis, d), "inner side wall and inner bottom of the tank"

    return builder


_BUILDERS = {
    "Random": lambda scene: ([], None, "none: poses of endoscope_tip at uniform random configurations"),
    "Table": _on_stand(lambda s: ebike.table(s, 0.30, 0.80, 1.40), "upper face of the table top"),
    "SmallTable": _on_stand(lambda s: ebike.table(s, 0.40, 0.50, 0.60), "upper face of the table top"),
    "TableObjects": _on_stand(ebike.objects, "sides and top caps of the six cylinders"),
    "Shelf": _on_stand(ebike.shelf, "floor, ceiling, sides and back of each of the 9 compartments"),
    "Barrel": _on_stand(ebike.barrel, "the six inner walls and the inner floor of the barrel"),
    "HydrogenTank": _tank(0.07),
    "HydrogenTankSmall": _tank(0.035),
}


def names() -> list[str]:
    """The scenario names.

    Returns:
        The names, in [E 4]'s order.
    """
    return list(_BUILDERS)


def load(name: str) -> Scenario:
    """Scenario `name` with a freshly built scene.

    Args:
        name: a name from `names()` (an UnknownNameError lists them).

    Returns:
        The `Scenario`.
    """
    if name not in _BUILDERS:
        raise UnknownNameError(f"unknown scenario {name!r}; {suggest(str(name), _BUILDERS, n=8)}")
    scene = Scene()
    patches, opening, surfaces = _BUILDERS[name](scene)
    for obstacle in scene.names:
        if obstacle not in SUPPORT:
            scene.allow_contact(obstacle, TIP_LINK)
    return Scenario(name, scene, opening, surfaces, tuple(patches))


__all__ = ["ENDOSCOPE_COVER", "READY", "Opening", "Scenario", "TargetSet", "load", "names"]
