"""An interactive web viewer (viser, the `[viz]` extra): a robot following draggable goal
handles, solved live. `bioik view ROBOT` from the shell; from Python:

    from bioik.viewer import Viewer, show
    viewer = show(robot, q)                          # prints the URL; blocks in a script
    res = viewer.set_goal_pose("pose panda_link8", T)  # move a handle, solve, show

viser is imported when a viewer opens, not with this module.
"""

from bioik.viewer.app import Viewer, show
from bioik.viewer.goals import GOAL_TYPES

__all__ = ["GOAL_TYPES", "Viewer", "show"]
