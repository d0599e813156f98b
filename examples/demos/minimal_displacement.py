"""Minimal displacement with a slow lifting joint [R 4.3].

[R] shows the PR2, whose torso moves up and down on a slow vertical prismatic joint:
MoveIt's KDL solver answered most queries by moving that joint, while BioIK with a
`MinimalDisplacementGoal` (each joint weighted by 1/its maximum velocity) moved mostly the
arm and the lift only when needed [R Fig. 4.3, 4.4].

Here: `mobile_ur5` (group `lift_arm`): a UR5 on a vertical lifting column (0-0.5 m at
0.2 m/s, the arm's joints 3.14 rad/s). A sequence of tool poses, each solved from the last
answer with `lm`, once without and once with the goal (secondary, as BioIK adds it).
The poses come from a random walk of the arm's joints with the column at 0.25 m, which
rises to its top over the last quarter: the arm alone reaches the first ones from where
the column stands; the last ones may need the lift.

Where this differs from [R]: a UR5 on a column instead of the PR2 (no PR2 among the
bundled robots; the column is the same kind of joint: slow, vertical, prismatic); the
targets are a seeded random walk, not [R]'s interactive marker motion; the solve
without the goal is `lm`, not KDL, so that the goal is the only difference.
"""

import numpy as np

import bioik
from common import arguments, plt, save, table

args = arguments(__doc__.splitlines()[0])
robot = bioik.load_robot("mobile_ur5", group="lift_arm")
lift = robot.variable_names.index("torso_lift")
n = 10 if args.quick else 40

rng = np.random.default_rng(0)
walk = robot.center() + np.cumsum(rng.normal(0.0, 0.15, (n, robot.dof)), axis=0)
rise = n - n // 4
walk[:, lift] = np.concatenate([np.full(rise, 0.25), np.linspace(0.25, robot.upper[lift], n - rise)])
configurations = robot.clip(walk)
targets = [robot.link_pose(q, "tool0") for q in configurations]

runs = {}
for label, extra in (("without the goal", []), ("with MinimalDisplacementGoal", [bioik.MinimalDisplacementGoal()])):
    q = robot.center()
    qs, solved = [q], 0
    for T in targets:
        res = bioik.solve(robot, [bioik.PoseGoal("tool0", T), *extra], seed=q, solver="lm", timeout=0.2, random_seed=1, max_iterations=3000)
        solved += res.success
        q = res.q
        qs.append(q)
    runs[label] = (np.array(qs), solved)

fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
steps = np.arange(n + 1)
for ax, (label, (qs, _)) in zip(axes[1:], runs.items()):
    axes[0].plot(steps, qs[:, lift], marker="o", ms=3, label=label)
    for j, name in enumerate(robot.variable_names):
        if j != lift:
            ax.plot(steps, qs[:, j], lw=1, label=name)
    ax.set_ylabel("arm joints (rad)")
    ax.set_title(f"arm joints, {label}", fontsize=10)
axes[0].set_ylabel("lift (m)")
axes[0].set_title("slow lifting column (0.2 m/s)", fontsize=10)
axes[0].legend(fontsize=8)
axes[1].legend(fontsize=7, ncol=3)
axes[2].set_xlabel("IK query")
save(fig, args.out, "minimal_displacement")

rows = []
for label, (qs, solved) in runs.items():
    travel = np.abs(np.diff(qs, axis=0)).sum(axis=0)
    rows.append((f"{label}: solved", f"{solved}/{n}"))
    rows.append((f"{label}: lift travel (m)", f"{travel[lift]:.3f}"))
    rows.append((f"{label}: arm travel (rad)", f"{np.delete(travel, lift).sum():.2f}"))
table(f"minimal displacement, mobile_ur5 lift_arm, {n} queries, lm", rows)
