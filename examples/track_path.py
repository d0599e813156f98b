"""Tracking a Cartesian path: the UR5's tool draws a circle, one IK solve per point.

`bioik.track` solves the poses in turn, each seeded with the previous answer and with a
secondary minimal-displacement goal, so the joints move smoothly; `max_step` refuses an
answer that would jump (a step marked failed instead of a sudden flip of the arm).

Run:  python examples/track_path.py            (BIOIK_QUICK=1: 20 points instead of 200)
"""

import os

import numpy as np

import bioik

robot = bioik.load_robot("ur5")
tip = robot.tips[0]
n = 20 if os.environ.get("BIOIK_QUICK") else 200

# A circle of 10 cm radius in a vertical plane in front of the robot, the tool pointing
# forward (its z axis along world -y) all the way.
facing = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
angles = np.linspace(0.0, 2.0 * np.pi, n)
poses = []
for a in angles:
    T = np.eye(4)
    T[:3, :3] = facing
    T[:3, 3] = (0.1 * np.cos(a), -0.45, 0.4 + 0.1 * np.sin(a))
    poses.append(T)

# Start from an answer for the first pose, then follow the path.
start = bioik.solve(robot, [bioik.PoseGoal(tip, poses[0])], seed=robot.center(), random_seed=0, max_iterations=2000)
result = bioik.track(robot, poses, start.q, timeout=0.02, solver="lm", max_step=0.2, random_seed=0, max_iterations=500)

errors = np.array([e[0] for e in result.goal_errors])  # (position m, rotation rad) per point
steps = np.abs(np.diff(np.vstack([start.q, result.q]), axis=0)).max(axis=1)
print(f"{n} points: {result.success.sum()} solved")
print(f"largest position error {errors[:, 0].max():.1e} m, rotation error {errors[:, 1].max():.1e} rad")
print(f"largest joint step {result.max_joint_step:.3f} rad (mean {steps.mean():.3f} rad)")
print(f"time per point: median {np.median(result.time) * 1e3:.3f} ms, max {result.time.max() * 1e3:.3f} ms")
