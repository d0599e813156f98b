"""Valve turning with fingertip position goals on a two-handed robot [R 4.4].

[R] turns a valve with the PR2: one position goal on each fingertip (two per gripper),
moved on a circle in front of the robot; the arms and the torso follow implicitly, with a
`MinimalDisplacementGoal` and an `AvoidJointLimitsGoal` for smooth motion. While turning,
the fingertips of each hand are close together (grasp); turning back, farther apart
(release) [R Fig. 4.5, 4.6].

Here: `dual_ur5` with its torso joint (two UR5 arms on a yawing torso). It has no
grippers, so this demo adds a parallel gripper to each tool flange (URDF text appended at
load: one prismatic finger 0-4 cm, the other mirrors it, fingertips 10 cm out). A valve
wheel of 0.2 m radius stands 0.6 m in front of the torso; each hand holds the rim at
opposite sides, its fingertips on the rim's front and back, 3 cm apart to grasp and 7 cm
to release. Two turns of 60 degrees and back, solved with `bioik.track` and `lm`
(warm-started, minimal displacement), plus a secondary `AvoidJointLimitsGoal` as in [R].

Where this differs from [R]: two UR5 arms with added grippers instead of the PR2; the
valve is a circle of goals (no simulated contact), as in [R]'s kinematic test.
"""

import numpy as np

import bioik
from common import arguments, plt, save, table

args = arguments(__doc__.splitlines()[0])

GRIPPER = """
  <link name="{s}_finger_a"/><link name="{s}_finger_b"/>
  <joint name="{s}_finger_joint" type="prismatic">
    <parent link="{s}_tool0"/><child link="{s}_finger_a"/><origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="50" velocity="0.1"/>
  </joint>
  <joint name="{s}_finger_b_joint" type="prismatic">
    <parent link="{s}_tool0"/><child link="{s}_finger_b"/><origin xyz="0 0 0.1"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.04" effort="50" velocity="0.1"/><mimic joint="{s}_finger_joint"/>
  </joint>
"""
urdf = bioik.robots.urdf_path("dual_ur5").read_text()
urdf = urdf.replace("</robot>", GRIPPER.format(s="left") + GRIPPER.format(s="right") + "</robot>")
tips = ["left_finger_a", "left_finger_b", "right_finger_a", "right_finger_b"]
robot = bioik.load_robot(urdf, group=[("world", tip) for tip in tips])
n = 12 if args.quick else 120  # IK steps over the whole motion
centre, radius = np.array([0.6, 0.0, 1.0]), 0.2
axis = np.array([1.0, 0.0, 0.0])  # the wheel turns about world x, facing the robot

# Two cycles: grasp and turn 60 degrees, release and turn back.
phase = np.linspace(0.0, 2.0, n, endpoint=False) % 1.0
angle = np.radians(60.0) * np.where(phase < 0.5, 2.0 * phase, 2.0 - 2.0 * phase)
gap = np.where(phase < 0.5, 0.03, 0.07)


def fingertip_targets(a: float, g: float) -> list[np.ndarray]:
    """Left hand at the rim's left (+y), right hand opposite; fingers in front and behind."""
    targets = []
    for side in (0.0, np.pi):
        rim = centre + radius * np.array([0.0, np.cos(a + side), np.sin(a + side)])
        targets += [rim - 0.5 * g * axis, rim + 0.5 * g * axis]
    return targets


steps = [[bioik.PositionGoal(tip, p) for tip, p in zip(tips, fingertip_targets(a, g))] + [bioik.AvoidJointLimitsGoal()]
         for a, g in zip(angle, gap)]
start = bioik.solve(robot, steps[0], seed=robot.center(), solver="lm", timeout=1.0, random_seed=0, max_iterations=20000)
result = bioik.track(robot, steps, start.q, timeout=0.05, solver="lm", random_seed=0, max_iterations=2000)
errors = np.array([e[:4, 0] for e in result.goal_errors])  # (steps, fingertips) in m
revolute = [i for i, name in enumerate(robot.variable_names) if "finger" not in name]  # torso and arms
joint_steps = np.abs(np.diff(np.vstack([start.q, result.q])[:, revolute], axis=0)).max(axis=1)

fig, (ax_a, ax_e) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
ax_a.plot(np.degrees(angle), label="valve angle (deg)")
ax_a.plot(gap * 1e3, label="fingertip gap (mm)")
ax_a.plot(np.degrees(joint_steps), label="largest torso/arm joint step (deg)")
ax_a.legend(fontsize=8)
ax_a.set_title("dual_ur5 with grippers turning a valve: goals and joint steps", fontsize=10)
for j, tip in enumerate(tips):
    ax_e.semilogy(np.maximum(errors[:, j], 1e-12), marker=".", label=tip)
ax_e.axhline(1e-5, color="k", ls="--", lw=0.8, label="tolerance 1e-5 m")
ax_e.set_ylabel("fingertip error (m)")
ax_e.set_xlabel("IK step")
ax_e.legend(fontsize=8, ncol=3)
save(fig, args.out, "valve_turning")

table(f"valve turning, dual_ur5 + grippers, {n} steps, lm", [
    ("steps solved", f"{result.success.sum()}/{n}"),
    ("largest fingertip error (m)", f"{errors.max():.1e}"),
    ("largest torso/arm joint step (rad)", f"{joint_steps.max():.3f}"),
    ("median time per step (ms)", f"{np.median(result.time) * 1e3:.2f}"),
])
