"""A goal of your own, written in Python: the UR5's tool on a circle, pointing down.

`LinkFunctionGoal(link, function)` charges function(T) (a number >= 0) for the link's
4x4 pose T; the goal is met when sqrt(function(T)) <= tolerance. It runs in Python, so
only the scipy-based `optlib_*` solvers take it (`optlib_lbfgsb` is chosen for you).

Run:  python examples/custom_goal.py
"""

import numpy as np

import bioik

robot = bioik.load_robot("ur5")
tip = robot.tips[0]

centre, radius, height = np.array([0.0, 0.0, 0.3]), 0.45, 0.3
calls = 0


def on_circle(T):
    """Squared distance of the tool's origin from a horizontal circle around the base."""
    global calls
    calls += 1
    x, y, z = T[:3, 3]
    return (np.hypot(x - centre[0], y - centre[1]) - radius) ** 2 + (z - height) ** 2


down = np.diag([1.0, -1.0, -1.0])  # tool z axis along world -z
goals = [
    bioik.LinkFunctionGoal(tip, on_circle, tolerance=1e-4),
    bioik.OrientationGoal(tip, down, tolerance=1e-4),
]
res = bioik.solve(robot, goals, seed=robot.center(), timeout=2.0, random_seed=4, max_iterations=500)

p = robot.link_pose(res.q, tip)[:3, 3]
print(f"solver {res.solver}: success {res.success}, time {res.time * 1e3:.1f} ms, "
      f"{calls} calls of the Python function")
print(f"tool at {np.round(p, 4)}: {np.hypot(*p[:2]) - radius:+.1e} m off the circle's radius, "
      f"{p[2] - height:+.1e} m off its height")
print(f"goal errors: {np.round(res.goal_errors[:, 0], 6)}")

