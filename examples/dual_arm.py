"""Several end effectors: both hands of the two-armed `dual_ur5` in one solve.

Each arm's tool gets a pose goal; the group `torso_both_arms` lets the torso's yaw
joint help both arms. One solve meets both goals together.

Run:  python examples/dual_arm.py
"""

import numpy as np

import bioik

robot = bioik.load_robot("dual_ur5", group="torso_both_arms")
print(f"robot {robot.name}: {robot.dof} joints, tips {robot.tips}")

# Targets in front of the torso: both tools point forward (+x), 0.6 m ahead, 0.25 m to
# either side of the middle, at chest height (1.0 m).
forward = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # tool z along world x
targets = {}
for tip, y in zip(robot.tips, (0.25, -0.25)):
    T = np.eye(4)
    T[:3, :3] = forward
    T[:3, 3] = (0.6, y, 1.0)
    targets[tip] = T

goals = [bioik.PoseGoal(tip, T) for tip, T in targets.items()]
res = bioik.solve(robot, goals, seed=robot.center(), solver="lm", timeout=0.2, random_seed=3, max_iterations=3000)

print(f"success: {res.success}, time: {res.time * 1e3:.2f} ms, restarts: {res.restarts}")
for tip, (position_error, rotation_error) in zip(targets, res.goal_errors):
    print(f"  {tip:12s} position error {position_error:.2e} m, rotation error {rotation_error:.2e} rad")
torso = robot.variable_names.index("torso_joint")
print(f"torso yaw: {res.q[torso]:+.3f} rad")

# Move only the right hand 10 cm up: seeded with the last answer and with a minimal
# displacement goal (secondary: it steers, it does not decide success), the left arm and
# the torso stay nearly where they were.
targets[robot.tips[1]][2, 3] += 0.10
goals = [bioik.PoseGoal(tip, T) for tip, T in targets.items()] + [bioik.MinimalDisplacementGoal()]
res2 = bioik.solve(robot, goals, seed=res.q, solver="lm", timeout=0.2, random_seed=3, max_iterations=3000)
print(f"after moving the right hand: success: {res2.success}, time: {res2.time * 1e3:.2f} ms")
step = np.abs(res2.q - res.q)
for side in ("left", "right"):
    moved = max(step[i] for i, name in enumerate(robot.variable_names) if name.startswith(side))
    print(f"  largest {side} arm joint step: {moved:.3f} rad")
print(f"  torso step: {step[torso]:.3f} rad")
