"""Scenes: named obstacles with poses in the robot's base frame and exact signed distances
(analytic for primitives, grids for meshes and boolean solids), packed for compiled code."""

from bioik.scene.shapes import Box, Capsule, Cylinder, Shape, Solid, Sphere

__all__ = ["Box", "Capsule", "Cylinder", "Shape", "Solid", "Sphere"]
