"""The helpers of the sphere-based goals: a goal's own sphere cover must be a SphereModel."""

import numpy as np
import pytest

import bioik


@pytest.mark.parametrize("spheres", [np.zeros((3, 4)), "cover", ...])
def test_spheres_that_are_not_a_sphere_model_are_named(spheres):
    ur5 = bioik.load_robot("ur5")
    scene = bioik.Scene()
    scene.add_sphere("ball", 0.1, np.eye(4))
    goal = bioik.ClearanceGoal(scene, spheres=spheres)
    with pytest.raises(TypeError, match=f"spheres must be a SphereModel .* or None; got {type(spheres).__name__}"):
        bioik.Problem(ur5, [goal])
