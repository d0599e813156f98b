"""SceneError is a BioikError and a ValueError."""

from bioik.errors import BioikError
from bioik.scene import SceneError


def test_scene_error_bases():
    assert issubclass(SceneError, BioikError) and issubclass(SceneError, ValueError)
