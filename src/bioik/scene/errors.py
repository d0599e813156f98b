"""`SceneError`: a scene's input is unusable (bad pose, unknown or duplicate name, a file
that does not exist, parse or validate).

It is a `ValueError` too, so code that already catches bad values keeps working. It is
defined with every other bioik error in `bioik.errors`; the scene modules import it from here.
"""

from bioik.errors import SceneError as SceneError
