"""Balanced IK: the centre of mass stays over the feet while a hand reaches forward [R 4.5].

[R] balances NASA's Valkyrie: position goals on the wrists, a `BalanceGoal` keeping the
centre of gravity above the feet, and extra goals on pelvis, torso and head so that the
postures stay natural; without the BalanceGoal the simulated robot falls over when the
wrist goals move [R Fig. 4.7, 4.8].

Here: `humanoid` (1.70 m, 65 kg, group `floating_whole_body`: the floating pelvis moves
too). Both feet keep their standing poses (pose goals on the soles), the right hand
reaches from the chest to 0.75 m in front and down to 0.8 m, the left hand stays by the
side. Solved with `bioik.track` and `lm` (each step seeded with the last answer), once
without and once with a `BalanceGoal` whose target is the middle between the feet. The picture shows, from above, the support polygon (the convex
hull of both soles) and the path of the centre of mass.

`track` adds its secondary minimal-displacement goal, so that each step moves the body
little.

Where this differs from [R]: a kinematic check of the centre of mass, no physics
simulation; our humanoid instead of Valkyrie; no goals on pelvis, torso and head.
"""

import numpy as np
from matplotlib.path import Path
from scipy.spatial import ConvexHull

import bioik
from common import arguments, plt, save, table

args = arguments(__doc__.splitlines()[0])
robot = bioik.load_robot("humanoid", group="floating_whole_body")
n = 8 if args.quick else 40
stand = robot.clip(np.zeros(robot.dof))  # upright, arms hanging, soles on the ground
masses = [(link.name, link.mass, link.com) for link in robot.model.links if link.mass > 0]


def centre_of_mass(q: np.ndarray) -> np.ndarray:
    """Σ m_i (p_i + R_i c_i) / Σ m_i over the links with mass."""
    total = np.zeros(3)
    for name, m, com in masses:
        T = robot.link_pose(q, name)
        total += m * (T[:3, 3] + T[:3, :3] @ com)
    return total / sum(m for _, m, _ in masses)


# Sole outline in each foot's sole frame (the foot box of the URDF: 0.2584 x 0.0935 m, its
# centre 0.0646 m ahead of the ankle), then the support polygon around both.
sole = np.array([[-0.0646, -0.0468], [0.1938, -0.0468], [0.1938, 0.0468], [-0.0646, 0.0468]])
corners = np.vstack([robot.link_pose(stand, f)[:2, 3] + sole for f in ("left_foot", "right_foot")])
hull = corners[ConvexHull(corners).vertices]
support = Path(np.vstack([hull, hull[:1]]))
middle = np.append(corners.mean(axis=0), 0.0)

reach = np.linspace([0.25, -0.25, 1.1], [0.75, -0.25, 0.8], n)
fixed = [bioik.PoseGoal(f, robot.link_pose(stand, f)) for f in ("left_foot", "right_foot")]
fixed.append(bioik.PositionGoal("left_hand", robot.link_pose(stand, "left_hand")[:3, 3]))
paths, solved = {}, {}
for label, balance in (("without BalanceGoal", []), ("with BalanceGoal", [bioik.BalanceGoal(target=middle)])):
    steps = [[*fixed, bioik.PositionGoal("right_hand", p), *balance] for p in reach]
    result = bioik.track(robot, steps, stand, timeout=0.2, solver="lm", random_seed=0,
                         max_iterations=3000)
    paths[label] = np.array([centre_of_mass(q)[:2] for q in result.q])
    solved[label] = result.success.sum()

fig, ax = plt.subplots(figsize=(8, 4.5))
ax.fill(*hull.T, color="0.85", label="support polygon (both soles)")
for label, path in paths.items():
    ax.plot(*path.T, marker="o", ms=3, label=f"centre of mass, {label}")
ax.plot(*reach[:, :2].T, "k:", label="right hand target (from above)")
ax.set_aspect("equal")
ax.set_xlabel("x forward (m)")
ax.set_ylabel("y left (m)")
ax.set_title("humanoid reaching forward: centre of mass from above", fontsize=10)
ax.legend(fontsize=8, loc="upper right")
save(fig, args.out, "balance")

rows = []
for label, path in paths.items():
    inside = support.contains_points(path)
    rows += [(f"{label}: steps solved", f"{solved[label]}/{n}"),
             (f"{label}: centre of mass over the soles", f"{inside.sum()}/{n} steps"),
             (f"{label}: largest distance from the middle (m)", f"{np.linalg.norm(path - middle[:2], axis=1).max():.3f}")]
table(f"balance, humanoid floating_whole_body, {n} steps, lm", rows)
