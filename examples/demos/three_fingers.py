"""Three fingers turning a knob with touch, line and look-at goals [R 4.6].

[R] turns a wheel on an audio mixer with a Shadow hand on a KUKA arm: each of the first
three fingers gets a `TouchGoal` (the fingertip's surface on the object), a `LineGoal`
(where around the object the finger sits) and a `LookAtGoal` (the right side of the
finger towards it); the goals rotate about the wheel, 200 IK steps make the trajectory,
with a secondary `MinimalDisplacementGoal` and `CenterJointsGoal` for smooth motion.

Here: the bundled `iiwa14_hand`, a knob of 3 cm radius 0.55 m in front of the robot, its
axis along x. The grasp is found first with touch goals alone; each finger's line (its
tip's, parallel to the knob's axis) and look-at (the distal pad's side that faces the
knob) are read off that grasp and turned with the knob, 60 degrees. bioik's TouchGoal
reads the distal link's real collision geometry (a cylinder between two spheres) and by
default also holds the touching point on the surface, which leaves the line and look-at
goals nothing to decide but which side and where: as primaries they over-constrain the
contact point the touch goal picks, so here they are secondary, steering the search;
`max_step` keeps each step near the last. The gap between each distal link and the knob
is measured independently, by coal's exact distance.
"""

import numpy as np

import bioik
from common import arguments, plt, save, table

args = arguments(__doc__.splitlines()[0])
robot = bioik.load_robot("iiwa14_hand")
n = 12 if args.quick else 200  # IK steps, as in [R], of 0.3 degrees each
centre, radius, axis = np.array([0.55, 0.0, 0.35]), 0.03, np.array([1.0, 0.0, 0.0])
normals = {f: np.array([0.0, np.cos(phi), np.sin(phi)]) for f, phi in (("thumb", 0.0), ("index", np.pi - 0.4), ("middle", np.pi + 0.4))}


def turned(theta: float) -> np.ndarray:
    """The rotation by theta about the knob's axis (world x)."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


grasp = bioik.solve(robot, [bioik.TouchGoal(f"{f}_distal", centre + radius * nf, nf) for f, nf in normals.items()]
                    + [bioik.CenterJointsGoal(weight=0.05, secondary=True)],
                    seed=robot.center(), solver="lm", timeout=5.0, random_seed=0, max_iterations=20000)
pad, tip, look = {}, {}, {}
for f, nf in normals.items():
    T = robot.link_pose(grasp.q, f"{f}_distal")
    pad[f] = T[:3, :3].T @ -nf  # the distal link's side facing the knob, in its own frame
    look[f] = T[:3, 3] - 10.0 * nf  # far along the inward normal
    tip[f] = robot.link_pose(grasp.q, f"{f}_tip")[:3, 3]


def goals(theta: float) -> list[bioik.Goal]:
    R, out = turned(theta), []
    for f, nf in normals.items():
        out += [bioik.TouchGoal(f"{f}_distal", centre + radius * R @ nf, R @ nf),
                bioik.LineGoal(f"{f}_tip", centre + R @ (tip[f] - centre), axis, weight=1.0, secondary=True),
                bioik.LookAtGoal(f"{f}_distal", centre + R @ (look[f] - centre), axis=pad[f], weight=1.0, secondary=True)]
    return out + [bioik.MinimalDisplacementGoal(weight=0.1, secondary=True), bioik.CenterJointsGoal(weight=0.05, secondary=True)]


angle = np.radians(np.linspace(0.0, 0.3 * (n - 1), n))
result = bioik.track(robot, [goals(a) for a in angle], grasp.q, timeout=0.05, solver="lm", max_step=0.3, random_seed=0,
                     max_iterations=2000)
knob = bioik.Scene()  # the knob itself, for coal's distance: a cylinder along world x
knob.add_cylinder("knob", radius, 0.05, np.array([[0.0, 0.0, 1.0, centre[0]], [0.0, 1.0, 0.0, centre[1]],
                                                  [-1.0, 0.0, 0.0, centre[2]], [0.0, 0.0, 0.0, 1.0]]))
checker = bioik.CollisionChecker(robot, knob)


def gaps(q: np.ndarray) -> list[float]:
    """Each distal link's exact distance from the knob (coal)."""
    near = {c.a: c.distance for c in checker.closest(q, k=100) if c.b == "knob"}
    return [near[f"{f}_distal"] for f in normals]


exact = np.array([gaps(q) for q in [grasp.q, *result.q[result.success]]])
errors = np.array([e[:9, 0] for e in result.goal_errors])  # per step: touch, line, look-at of each finger
touch, line, looks = errors[:, 0::3], errors[:, 1::3], errors[:, 2::3]
steps = np.abs(np.diff(np.vstack([grasp.q, result.q]), axis=0)).max(axis=1)

fig, (ax_t, ax_s) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
for k, f in enumerate(normals):
    ax_t.semilogy(np.degrees(angle), np.maximum(touch[:, k], 1e-12), label=f"{f}: touch (m)")
    ax_t.semilogy(np.degrees(angle), np.maximum(line[:, k], 1e-12), ls="--", label=f"{f}: off its line (m)")
ax_t.axhline(1e-5, color="k", lw=0.8, label="tolerance 1e-5 m")
ax_t.set_title("iiwa14_hand turning a knob: touch (primary) and line (secondary) errors", fontsize=10)
ax_t.legend(fontsize=7, ncol=2)
ax_s.plot(np.degrees(angle), np.degrees(steps), label="largest joint step (deg)")
ax_s.plot(np.degrees(angle), np.degrees(np.arcsin(np.minimum(looks.max(axis=1) / 2.0, 1.0)) * 2.0), label="largest look-at angle (deg)")
ax_s.set_xlabel("knob angle (deg)")
ax_s.legend(fontsize=8)
save(fig, args.out, "three_fingers")

table(f"three fingers turning a knob, iiwa14_hand, {n} steps, lm", [
    ("grasp found", str(grasp.success)),
    ("steps solved", f"{result.success.sum()}/{n}"),
    ("largest touch error (m)", f"{touch.max():.1e}"),
    ("largest gap to the knob, by coal (m)", f"{np.abs(exact).max():.1e}"),
    ("largest line offset (m)", f"{line.max():.1e}"),
    ("largest look-at residual", f"{looks.max():.1e}"),
    ("largest joint step (rad)", f"{steps.max():.3f}"),
    ("median time per step (ms)", f"{np.median(result.time) * 1e3:.2f}"),
])
