"""Scenes: named obstacles with poses in the robot's base frame and exact signed distances
(analytic for primitives, grids for meshes and boolean solids), packed for compiled code.

    scene = Scene()
    scene.add_box("table", (1.2, 0.8, 0.05), pose)
    scene.add("tank", difference(Cylinder(0.5, 1.0), Cylinder(0.47, 0.94)))
    d, grad = scene.distance(points)        # negative inside
    blob = scene.pack()                     # for sdf.scene_distance in compiled code
"""

from bioik.scene.boolean import difference, union
from bioik.scene.errors import SceneError
from bioik.scene.scene import Obstacle, Scene
from bioik.scene.shapes import Box, Capsule, Cylinder, Shape, Solid, Sphere, Surface

__all__ = [
    "Box", "Capsule", "Cylinder", "Obstacle", "Scene", "SceneError", "Shape", "Solid", "Sphere", "Surface",
    "difference", "union",
]
