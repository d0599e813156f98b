"""A goal of your own: the UR5's tool on a circle, pointing down.

`LinkFunctionGoal(link, function)` charges function(T) (a number >= 0) for the link's
4x4 pose T; the goal is met when sqrt(function(T)) <= tolerance. Every solver that takes
residual goals takes it, the default one too. A plain Python function works; the same
function under numba's `@njit` runs inside the compiled search, many times faster.

Run:  python examples/custom_goal.py
"""

import time

import numpy as np
from numba import njit

import bioik

robot = bioik.load_robot("ur5")
tip = robot.tips[0]
radius, height = 0.45, 0.3


def on_circle(T):
    """Squared distance of the tool's origin from a horizontal circle around the base."""
    x, y, z = T[0, 3], T[1, 3], T[2, 3]
    return (np.sqrt(x * x + y * y) - radius) ** 2 + (z - height) ** 2


down = np.diag([1.0, -1.0, -1.0])  # tool z axis along world -z
seeds = robot.random_configuration(np.random.default_rng(4), 20)
for name, function in (("Python", on_circle), ("@njit", njit(on_circle))):
    goals = [bioik.LinkFunctionGoal(tip, function, tolerance=1e-4), bioik.OrientationGoal(tip, down, tolerance=1e-4)]
    bioik.solve(robot, goals, seeds[0], max_iterations=1)  # the first use builds the function's callback
    times, answers = [], []
    for k, seed in enumerate(seeds):
        t0 = time.perf_counter()
        res = bioik.solve(robot, goals, seed, timeout=1.0, random_seed=k)
        times.append(time.perf_counter() - t0)
        if res.success:
            answers.append(robot.link_pose(res.q, tip)[:3, 3])
    P = np.array(answers)
    print(f"{name:6s} function, solver {res.solver}: {len(P)}/{len(seeds)} solved, median {np.median(times) * 1e3:.2f} ms; "
          f"at most {np.abs(np.hypot(P[:, 0], P[:, 1]) - radius).max():.1e} m off the radius, "
          f"{np.abs(P[:, 2] - height).max():.1e} m off the height")
