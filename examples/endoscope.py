"""Look-at and line goals on the endoscope of `elise_ur10` (a UR10 carrying a thin rod
with a roll joint and two bending joints at its camera end).

The rod enters a cavity through a port in a plate: a position goal puts the lower end of
its straight part 12 cm below the port, on the port's vertical axis, and a line goal
keeps its upper end on that axis too, so the rod passes straight through the hole. A look-at goal points the camera (+z of `endoscope_tip`) at inspection points
inside; the bending joints and the arm share the work.

Run:  python examples/endoscope.py
"""

import numpy as np

import bioik

robot = bioik.load_robot("elise_ur10")  # group arm_endoscope: 6 arm + 3 endoscope joints
print(f"robot {robot.name}: {robot.dof} joints, tip {robot.tips[0]}")

port = np.array([0.8, 0.3, 0.4])  # a hole in a horizontal plate, axis along world z
down = np.array([0.0, 0.0, -1.0])
insertion = [
    bioik.LineGoal("endoscope_link_1", port, down),  # the rod's upper end (at the roll joint)
    bioik.PositionGoal("endoscope_link_2", port + 0.12 * down),  # its lower end (first bend)
]
# Points to look at inside the cavity, below the port and off its axis.
views = [port + d for d in ([0.08, 0.0, -0.25], [0.0, 0.08, -0.25], [-0.08, -0.05, -0.3])]

q = robot.center()
for target in views:
    look = bioik.LookAtGoal("endoscope_tip", target, axis=(0.0, 0.0, 1.0))
    # Each view is solved from the last answer, staying close to it (secondary goal).
    goals = [*insertion, look, bioik.MinimalDisplacementGoal()]
    res = bioik.solve(robot, goals, seed=q, solver="lm", timeout=0.2, random_seed=5, max_iterations=5000)
    q = res.q

    tip = robot.link_pose(q, "endoscope_tip")
    to_target = (target - tip[:3, 3]) / np.linalg.norm(target - tip[:3, 3])
    angle = np.degrees(np.arccos(np.clip(tip[:3, 2] @ to_target, -1.0, 1.0)))
    ends = [robot.link_pose(q, g.link)[:3, 3] for g in insertion]
    off_axis = [np.linalg.norm((p - port)[:2]) for p in ends]  # distance from the vertical axis
    bends = q[robot.variable_names.index("endoscope_bend1_joint"):][:2]
    print(f"target {np.round(target, 3)}: success {res.success}, {res.time * 1e3:.2f} ms")
    print(f"  camera axis off the target by {angle:.4f} deg; rod ends off the port axis by "
          f"{off_axis[0]:.1e} and {off_axis[1]:.1e} m, at heights {ends[0][2]:.3f} and "
          f"{ends[1][2]:.3f} m (port {port[2]} m); bends {np.round(bends, 3)} rad")
