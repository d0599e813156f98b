"""The eight EBIKE scenarios of [E 4], rebuilt in code for the bundled `elise_ur10`.

[E 4] names the scenarios, says what stands where in words (tables, six cylinders on the
small table, a square shelf, a barrel with a hexagonal inside standing on the ground, two
hydrogen tanks differing only in their opening) and how targets are drawn (uniformly on
the surfaces the tool should touch, one fully constrained pose each). It gives one
dimension: the tanks' openings, 7 cm and 3.5 cm across. Every other number below is
chosen here, sized so the targets lie within reach of elise_ur10 (a UR10, ≈1.2 m from
shoulder to wrist, carrying a 0.30 m rod and two 0.05 m bending segments, each bend at
most 90°; see its URDF). [E]'s own meshes were built for the real ELISE, whose
dimensions differ, so these scenes are not [E]'s files: they keep its structure.

All lengths in metres, poses in elise_ur10's base frame (base_link: z up, the robot
reaches along +x at zero). Sources: "[E 4]" = stated in [E] chapter 4; "chosen" = ours.

Common to all but Random (chosen: [E 4] shows only the objects; a robot and its objects
need something to stand on, and the tables are set so their top is level with the base):
  pedestal  box 0.30 × 0.30 × 0.75 under the base (top at z = 0); base_link and
            shoulder_link may touch it (`Scene.allow_contact`)
  floor     box 4 × 4 × 0.05, top at z = −0.75 (the pedestal's foot); objects stand on it

Random [E 4, E 8]: no obstacles at all ([E 4]: only self-collision counts); targets are
  the poses of endoscope_tip at configurations drawn uniformly within the joint limits
  (as [E 8] draws them in joint space; `sample_targets` keeps self-colliding ones, the
  stored targets do not).
Table: top 0.80 (x) × 1.40 (y) × 0.04, upper face at z = 0, near edge at x = 0.30,
  centred on y = 0; four legs 0.05 × 0.05 from the floor to the top, inset 0.05 from
  the corners (chosen). Targets: the upper face [E 4].
SmallTable: as Table, top 0.50 × 0.60, near edge at x = 0.40 (chosen; [E 4]: a smaller
  table). Targets: the upper face [E 4].
TableObjects: SmallTable with six upright cylinders on it [E 4], (radius, height) =
  (0.035, 0.20), (0.050, 0.12), (0.030, 0.16), (0.045, 0.22), (0.040, 0.10), (0.055, 0.14)
  at x ∈ {0.53, 0.77} × y ∈ {−0.17, 0, 0.17} (chosen). Targets: the cylinders' sides
  and top caps ([E 4]: sides and caps that can be reached; the bottom caps rest on the
  table). The table top is an obstacle, not a target.
Shelf: a square shelf [E 4] of 3 × 3 compartments, each 0.30 × 0.30 and 0.30 deep,
  boards 0.02 thick, a back panel, open towards the robot: outer 0.98 × 0.98 × 0.32,
  standing on the floor (z from −0.75 to 0.23), open front at x = 0.55, centred on y = 0
  (chosen). Targets: the five inner faces of every compartment (floor, ceiling, sides,
  back) [E 4: "inside compartments"].
Barrel: stands on the floor [E 4]; outer cylinder radius 0.27, height 0.55 (top at
  z = −0.20), axis at (0.70, 0); hexagonal inside [E 4], circumradius 0.24 (corners at
  0°, 60°, … about +x), floor 0.03 thick (chosen). Targets: the six inner walls and the
  inner floor (chosen: [E 4] has the robot reach inside).
HydrogenTank: an upright closed cylinder on the floor, axis at (0.65, 0), outer radius
  0.16 and height 0.32 (lid's upper face at z = −0.43), walls, lid and bottom 0.01 thick
  (chosen: small enough that the 0.40 m endoscope reaches the bottom through the lid);
  a round opening of diameter 0.07 [E 4] in the middle of the lid, so the insertion line
  through it runs along the tank's length ([E 8.7]). Targets: the inner side wall and
  the inner bottom ([E 4]: inside the tank; the lid's underside is left out, chosen:
  the tip cannot turn back up to it, its two bends being at most 90° and about
  orthogonal axes).
HydrogenTankSmall: HydrogenTank with an opening of diameter 0.035 [E 4].

`opening` (tanks only): the centre of the hole on the lid's upper face, the unit axis
pointing into the tank (−z), and the diameter.
"""

from __future__ import annotations

import numpy as np

from bioik.scene import Cylinder, Scene, difference
from bioik.scenes.surfaces import Disk, Mantle, rect, triangle

FLOOR_Z = -0.75
TABLE_THICKNESS, LEG = 0.04, 0.05


def _at(x: float, y: float, z: float) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


def stand(scene: Scene) -> None:
    """The pedestal the robot stands on and the floor under everything."""
    scene.add_box("pedestal", (0.30, 0.30, -FLOOR_Z), _at(0.0, 0.0, FLOOR_Z / 2))
    scene.add_box("floor", (4.0, 4.0, 0.05), _at(0.5, 0.0, FLOOR_Z - 0.025))
    scene.allow_contact("pedestal", "base_link", "shoulder_link")


def table(scene: Scene, near_x: float, depth: float, width: float) -> list:
    """A table with its upper face at z = 0; returns that face as the target patch."""
    cx = near_x + depth / 2
    scene.add_box("table_top", (depth, width, TABLE_THICKNESS), _at(cx, 0.0, -TABLE_THICKNESS / 2))
    leg_h = -FLOOR_Z - TABLE_THICKNESS
    for k, (sx, sy) in enumerate([(-1, -1), (-1, 1), (1, -1), (1, 1)]):
        x = cx + sx * (depth / 2 - 0.05 - LEG / 2)
        y = sy * (width / 2 - 0.05 - LEG / 2)
        scene.add_box(f"table_leg_{k}", (LEG, LEG, leg_h), _at(x, y, FLOOR_Z + leg_h / 2))
    return [rect((cx, 0.0, 0.0), (depth, 0.0, 0.0), (0.0, width, 0.0), (0.0, 0.0, 1.0))]


CYLINDERS = [(0.035, 0.20), (0.050, 0.12), (0.030, 0.16), (0.045, 0.22), (0.040, 0.10), (0.055, 0.14)]
CYLINDER_XY = [(x, y) for x in (0.53, 0.77) for y in (-0.17, 0.0, 0.17)]


def objects(scene: Scene) -> list:
    table(scene, 0.40, 0.50, 0.60)
    patches = []
    for k, ((r, h), (x, y)) in enumerate(zip(CYLINDERS, CYLINDER_XY)):
        scene.add_cylinder(f"cylinder_{k}", r, h, _at(x, y, h / 2))
        patches += [Mantle((x, y, h / 2), (0.0, 0.0, 1.0), r, h), Disk((x, y, h), r, (0.0, 0.0, 1.0))]
    return patches


CELL, BOARD, SHELF_DEPTH, SHELF_FRONT = 0.30, 0.02, 0.30, 0.55


def shelf(scene: Scene) -> list:
    side = 3 * CELL + 4 * BOARD
    y0, z0, xc = -side / 2, FLOOR_Z, SHELF_FRONT + SHELF_DEPTH / 2
    for k in range(4):
        scene.add_box(f"shelf_board_{k}", (SHELF_DEPTH, side, BOARD), _at(xc, 0.0, z0 + BOARD / 2 + k * (CELL + BOARD)))
        scene.add_box(f"shelf_side_{k}", (SHELF_DEPTH, BOARD, side), _at(xc, y0 + BOARD / 2 + k * (CELL + BOARD), z0 + side / 2))
    back_x = SHELF_FRONT + SHELF_DEPTH
    scene.add_box("shelf_back", (BOARD, side, side), _at(back_x + BOARD / 2, 0.0, z0 + side / 2))
    patches = []
    for i in range(3):
        for j in range(3):
            lo_y, lo_z = y0 + BOARD + j * (CELL + BOARD), z0 + BOARD + i * (CELL + BOARD)
            cy, cz = lo_y + CELL / 2, lo_z + CELL / 2
            along_x, along_y, along_z = (SHELF_DEPTH, 0.0, 0.0), (0.0, CELL, 0.0), (0.0, 0.0, CELL)
            patches += [
                rect((xc, cy, lo_z), along_x, along_y, (0.0, 0.0, 1.0)),
                rect((xc, cy, lo_z + CELL), along_x, along_y, (0.0, 0.0, -1.0)),
                rect((xc, lo_y, cz), along_x, along_z, (0.0, 1.0, 0.0)),
                rect((xc, lo_y + CELL, cz), along_x, along_z, (0.0, -1.0, 0.0)),
                rect((back_x, cy, cz), along_y, along_z, (-1.0, 0.0, 0.0)),
            ]
    return patches


BARREL_XY, BARREL_R, BARREL_H, HEX_R, BARREL_FLOOR = (0.70, 0.0), 0.27, 0.55, 0.24, 0.03


def barrel(scene: Scene) -> list:
    import trimesh  # on use: importing it takes ≈ 1 s

    x, y = BARREL_XY
    top, bottom = FLOOR_Z + BARREL_H, FLOOR_Z + BARREL_FLOOR
    hole = trimesh.creation.cylinder(radius=HEX_R, height=BARREL_H, sections=6)  # corners at 0°, 60°, …
    solid = difference(Cylinder(BARREL_R, BARREL_H), (hole, _at(0.0, 0.0, BARREL_FLOOR)))  # inner floor 0.03 up
    scene.add("barrel", solid, _at(x, y, FLOOR_Z + BARREL_H / 2))
    corners = [np.array([x + HEX_R * np.cos(a), y + HEX_R * np.sin(a), 0.0]) for a in np.radians(np.arange(0, 360, 60))]
    centre, patches = np.array([x, y, bottom]), []
    for k in range(6):
        a, b = corners[k], corners[(k + 1) % 6]
        mid = (a + b) / 2
        inward = (np.array([x, y, 0.0]) - mid) / np.linalg.norm((np.array([x, y, 0.0]) - mid))
        patches.append(rect(tuple(mid + (0, 0, (top + bottom) / 2)), tuple(b - a), (0.0, 0.0, top - bottom), tuple(inward)))
        patches.append(triangle(tuple(centre), tuple(a + (0, 0, bottom)), tuple(b + (0, 0, bottom)), (0.0, 0.0, 1.0)))
    return patches


TANK_XY, TANK_R, TANK_H, TANK_WALL = (0.65, 0.0), 0.16, 0.32, 0.01


def tank(scene: Scene, opening_diameter: float) -> tuple[list, tuple]:
    """The tank and its targets, and its opening (point, axis, diameter)."""
    x, y = TANK_XY
    inner_r, inner_h = TANK_R - TANK_WALL, TANK_H - 2 * TANK_WALL
    hole = (Cylinder(opening_diameter / 2, 4 * TANK_WALL), _at(0.0, 0.0, TANK_H / 2 - TANK_WALL / 2))
    scene.add("tank", difference(Cylinder(TANK_R, TANK_H), Cylinder(inner_r, inner_h), hole), _at(x, y, FLOOR_Z + TANK_H / 2))
    lid, bottom = FLOOR_Z + TANK_H, FLOOR_Z + TANK_WALL
    patches = [Mantle((x, y, bottom + inner_h / 2), (0.0, 0.0, 1.0), inner_r, inner_h, inward=True),
               Disk((x, y, bottom), inner_r, (0.0, 0.0, 1.0))]
    return patches, ((x, y, lid), (0.0, 0.0, -1.0), opening_diameter)
