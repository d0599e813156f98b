"""`SceneError`: a scene's input is unusable (bad pose, unknown or duplicate name, a file
that does not exist, parse or validate).

It is a `ValueError` too, so code that already catches bad values keeps working.
"""

from bioik.errors import BioikError


class SceneError(BioikError, ValueError):
    """A scene input error; the message names the file, obstacle and key involved."""
