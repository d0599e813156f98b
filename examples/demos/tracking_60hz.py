"""Pose tracking at 60 Hz with joint displacement [S 5.5.4].

[S] tracks a moving Cartesian target with the UR5 at a fixed frame rate of 60 Hz, each
frame continuing from the previous solution, and plots the remaining pose error per frame
[S Fig. 5.24] and the joint displacement, the sum of all joint value changes, against the
target's Cartesian displacement [S Fig. 5.29]: the joints should move as smoothly as the
target.

Here: the UR5's tool follows a figure eight (0.15 m wide, fixed orientation, one lap in
4 s = 240 frames); every frame is one solve with the frame's 1/60 s as its timeout,
seeded with the last answer and with a secondary minimal-displacement goal
(`bioik.track`), for `lm`, `bio2_lm` and `bio2_memetic`. The picture shows per frame the
solve time, the position error and the joint displacement beside the target's motion.

Where this differs from [S]: [S]'s target moved with a real frame clock (its noise shows
in the displacement), ours moves by equal steps; [S] ran its own Hybrid Genetic Swarm
Algorithm, we run bioik's solvers; iterations are capped so that runs repeat exactly.
"""

import numpy as np

import bioik
from common import arguments, plt, save, table

args = arguments(__doc__.splitlines()[0], solvers=("lm", "bio2_lm", "bio2_memetic"))
robot = bioik.load_robot("ur5")
frames = 20 if args.quick else 240
t = np.arange(frames) / 60.0
phase = 2.0 * np.pi * t / 4.0
facing = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])
poses = np.tile(np.eye(4), (frames, 1, 1))
poses[:, :3, :3] = facing
poses[:, :3, 3] = np.column_stack([0.15 * np.sin(phase), np.full(frames, -0.45), 0.4 + 0.075 * np.sin(2.0 * phase)])
target_step = np.linalg.norm(np.diff(poses[:, :3, 3], axis=0, prepend=poses[:1, :3, 3]), axis=1)

start = bioik.solve(robot, [bioik.PoseGoal("tool0", poses[0])], seed=robot.center(), random_seed=0, max_iterations=2000)
fig, axes = plt.subplots(4, 1, figsize=(8, 9), sharex=True)
rows = []
for solver in args.solvers:
    res = bioik.track(robot, list(poses), start.q, timeout=1.0 / 60.0, solver=solver, random_seed=0, max_iterations=1000)
    error = np.array([e[0, 0] for e in res.goal_errors])
    displacement = np.abs(np.diff(np.vstack([start.q, res.q]), axis=0)).sum(axis=1)
    axes[0].semilogy(t, res.time * 1e3, lw=1, label=solver)
    axes[1].semilogy(t, np.maximum(error, 1e-12), lw=1, label=solver)
    axes[2].plot(t, displacement, lw=1, label=solver)
    rows += [(f"{solver}: frames solved", f"{res.success.sum()}/{frames}"),
             (f"{solver}: solve time median / max (ms)", f"{np.median(res.time) * 1e3:.3f} / {res.time.max() * 1e3:.3f}"),
             (f"{solver}: position error max (m)", f"{error.max():.1e}"),
             (f"{solver}: joint displacement per frame max (rad)", f"{displacement.max():.4f}")]
axes[0].axhline(1e3 / 60.0, color="k", ls="--", lw=0.8, label="frame (16.7 ms)")
axes[0].set_ylabel("solve time (ms)")
axes[1].axhline(1e-5, color="k", ls="--", lw=0.8, label="tolerance")
axes[1].set_ylabel("position error (m)")
axes[2].set_ylabel("joint displacement\n(sum |Δq|, rad)")
axes[3].plot(t, target_step * 1e3, color="k", lw=1)
axes[3].set_ylabel("target step (mm)")
axes[3].set_xlabel("time (s), 60 frames per second")
for ax in axes[:3]:
    ax.legend(fontsize=7, ncol=4)
axes[0].set_title("UR5 tracking a figure eight at 60 Hz", fontsize=10)
save(fig, args.out, "tracking_60hz")
rows.append(("target step per frame max (mm)", f"{target_step.max() * 1e3:.2f}"))
table(f"pose tracking at 60 Hz, ur5, {frames} frames", rows)
