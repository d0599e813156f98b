"""coal's shape conventions match bioik.scene's (full box edges, full cylinder/capsule lengths)."""

import numpy as np
import pytest

from bioik.collision._coal import coal, shape_geometry, transform
from bioik.scene import Box, Capsule, Cylinder, Sphere


@pytest.mark.parametrize("shape,top", [(Box((0.2, 0.4, 0.6)), 0.3), (Cylinder(0.1, 0.6), 0.3), (Capsule(0.1, 0.6), 0.4), (Sphere(0.25), 0.25)])
def test_the_top_of_each_shape_is_where_trimesh_puts_it(shape, top):
    assert shape.trimesh().vertices[:, 2].max() == pytest.approx(top, abs=1e-3)
    probe = coal.Sphere(0.01)
    T = np.eye(4)
    T[2, 3] = top + 0.05
    d = coal.distance(shape_geometry(shape), transform(np.eye(4)), probe, transform(T), coal.DistanceRequest(), coal.DistanceResult())
    assert d == pytest.approx(0.04, abs=1e-6)
