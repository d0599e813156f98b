"""A hand with fingertip goals: the iiwa arm and its five-finger hand pinch a ball.

Only the fingertips get goals (position goals on thumb, index and middle tips); the arm
and the finger joints follow from them together, as in BioIK's multi-goal examples. A
secondary `CenterJointsGoal` spends the remaining freedom on joints away from their
limits [R 4.4]; it never keeps the fingertips from their goals.

Run:  python examples/hand_fingertips.py
"""

import numpy as np

import bioik

robot = bioik.load_robot("iiwa14_hand")  # default group arm_hand: 7 arm + 16 finger variables
print(f"robot {robot.name}: {robot.dof} joint variables, fingertips {robot.tips}")

# A ball of 6 cm diameter, 0.55 m in front of the robot: the thumb touches it on one
# side, index and middle finger on the other, 2.3 cm apart.
centre = np.array([0.55, 0.0, 0.35])
radius = 0.03
contacts = {
    "thumb_tip": centre + [0.0, radius, 0.0],
    "index_tip": centre + [0.0, -radius * np.cos(0.4), radius * np.sin(0.4)],
    "middle_tip": centre + [0.0, -radius * np.cos(0.4), -radius * np.sin(0.4)],
}
goals = [bioik.PositionGoal(tip, p) for tip, p in contacts.items()] + [bioik.CenterJointsGoal(weight=0.1)]

res = bioik.solve(robot, goals, seed=robot.center(), solver="lm", timeout=0.5, random_seed=2, max_iterations=5000)

print(f"success: {res.success}, time: {res.time * 1e3:.2f} ms, restarts: {res.restarts}")
for (tip, p), (error, _) in zip(contacts.items(), res.goal_errors):
    reached = robot.link_pose(res.q, tip)[:3, 3]
    print(f"  {tip:10s} error {error:.2e} m, at {np.round(reached, 4)}")

# The arm placed the hand, the fingers closed around the ball: print a few finger joints.
for name in ("thumb_cmc_abd_joint", "index_mcp_joint", "index_pip_joint", "middle_mcp_joint"):
    print(f"  {name:20s} {res.q[robot.variable_names.index(name)]:+.3f} rad")
