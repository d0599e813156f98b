"""The web viewer on panda: drag the handle at the hand, the arm follows.

    pip install "bioik[viz]"
    python examples/viewer.py              # open the printed URL; Ctrl-C to stop
    python examples/viewer.py --no-block   # move the handle once from Python, print, exit

The same from the shell: `bioik view panda`.
"""

import argparse

import numpy as np

import bioik
from bioik.viewer import show

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--no-block", action="store_true", help="move the handle once and exit (for tests)")
parser.add_argument("--port", type=int, default=8080, help="port (0: any free one)")
args = parser.parse_args()

robot = bioik.load_robot("panda")
q = robot.center()
viewer = show(robot, q, solver="lm", timeout=0.01, port=args.port, block=False)

# Move the hand's pose handle 10 cm to the side from Python, as a drag in the browser would.
T = robot.link_pose(q, "panda_link8")
T[:3, 3] += (0.0, 0.1, 0.0)
res = viewer.set_goal_pose("pose panda_link8", T)
np.set_printoptions(precision=3, suppress=True)
print(f"{'solved' if res.success else 'not solved'} in {res.time * 1e3:.2f} ms: q = {viewer.q}")

if args.no_block:
    viewer.close()
else:
    viewer.wait()  # serve until Ctrl-C
