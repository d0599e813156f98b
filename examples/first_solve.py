"""A first solve: one pose goal on the Panda arm.

Run:  python examples/first_solve.py
"""

import numpy as np

import bioik

# A bundled robot by name (or a URDF path, or URDF text). The default group of the
# Panda is its 7-joint arm; the fingers stay at their frozen values.
robot = bioik.load_robot("panda")
tip = robot.tips[0]
print(f"robot {robot.name}: {robot.dof} joints, tip {tip}")

# A target we know is reachable: forward kinematics of a random configuration.
q_target = robot.random_configuration(7)
T = robot.link_pose(q_target, tip)  # 4x4 pose of the tip in the base frame
print("target position (m):", np.round(T[:3, 3], 4))

# Solve from the joint centres. A seeded random generator and an iteration budget make
# the answer the same on every run; the timeout bounds the time.
goal = bioik.PoseGoal(tip, T)
res = bioik.solve(robot, [goal], seed=robot.center(), solver="lm", timeout=0.05, random_seed=1, max_iterations=1000)

# Success is checked by bioik on exact forward kinematics (1e-5 m and 1e-5 rad).
position_error, rotation_error = res.goal_errors[0]
print(f"success: {res.success}")
print(f"position error: {position_error:.2e} m, rotation error: {rotation_error:.2e} rad")
print(f"time: {res.time * 1e3:.3f} ms, iterations: {res.iterations}, restarts: {res.restarts}")
print("q:", np.round(res.q, 4))

# The answer's tip pose is the target (the joint values may differ from q_target:
# a 7-joint arm has many answers for one pose).
T_found = robot.link_pose(res.q, tip)
print(f"check: |p_found - p_target| = {np.linalg.norm(T_found[:3, 3] - T[:3, 3]):.2e} m")
