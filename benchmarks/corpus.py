"""Robots nobody here wrote: the public `example-robot-data` descriptions, with their meshes and SRDFs.

For each robot: it loads from its URDF with its SRDF (``package://`` found with no
argument), FK agrees with yourdfpy on every link, the sphere cover holds every collision
mesh vertex (the conservative property), and a collision-aware solve against one box
reaches targets whose collision-free witness was found by rejection sampling, for each SRDF
group with an end effector (without one: the robot's first tip). Columns: links, DoF,
collision triangles, load time cold (no model cache) and warm, cover build time (no cover
cache), spheres, cover overshoot per link (median and max, mm: how far the spheres reach
beyond the link's mesh, sampled on the spheres' surfaces), and per group the targets
solved within the timeout, the median time, and false successes (answers the exact check
finds colliding; must be 0).

    pip install example-robot-data
    PYTHONPATH=src python benchmarks/corpus.py [--targets 100] [--timeout 0.1] [--robots panda ur5 ...]

Timings on a shared machine are noisy: run it twice.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

import bioik


@dataclass(frozen=True)
class Entry:
    """A corpus robot: its URDF and SRDF, relative to example-robot-data's robots/ folder."""

    name: str
    urdf: str
    srdf: str | None = None
    #: without an SRDF: the (base, tip) chain to solve for
    chain: tuple[str, str] | None = None
    #: an SRDF group state whose values (for the joints the URDF has) hold the joints outside
    #: the solved group: at zero a humanoid's arms hang through its thighs
    rest: str | None = None
    #: without an SRDF: values (by joint name) that hold joints outside the chain
    frozen: tuple[tuple[str, float], ...] = ()


CORPUS = (
    Entry("ur5", "ur_description/urdf/ur5_robot.urdf", "ur_description/srdf/ur5.srdf"),
    Entry("ur10", "ur_description/urdf/ur10_robot.urdf"),
    Entry("panda", "panda_description/urdf/panda.urdf", "panda_description/srdf/panda.srdf"),
    Entry("talos", "talos_data/robots/talos_full_v2.urdf", "talos_data/srdf/talos.srdf", rest="half_sitting"),
    Entry("talos_reduced", "talos_data/robots/talos_reduced.urdf", "talos_data/srdf/talos.srdf", rest="half_sitting"),
    # at the lowest lift tiago's collision meshes put arm_1_link inside the torso column in
    # every arm configuration (200 of 200 sampled collide); at mid-lift 171 of 200 are free
    Entry("tiago", "tiago_description/robots/tiago.urdf", chain=("torso_lift_link", "arm_tool_link"),
          frozen=(("torso_lift_joint", 0.175),)),
    Entry("kinova", "kinova_description/robots/kinova.urdf", "kinova_description/srdf/kinova.srdf"),
    Entry("solo12", "solo_description/robots/solo12.urdf", "solo_description/srdf/solo.srdf"),
    Entry("xarm7", "xarm_description/urdf/xarm7.urdf", "xarm_description/srdf/xarm7.srdf"),
    Entry("romeo", "romeo_description/urdf/romeo.urdf", "romeo_description/srdf/romeo.srdf"),
)


def robots_folder() -> Path | None:
    """example-robot-data's robots/ folder (pip's cmeel layout), or None if not installed."""
    try:
        dist = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        return None
    folder = Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))
    return folder if folder.is_dir() else None


def load(entry: Entry, root: Path) -> bioik.Robot:
    """The robot with its SRDF (or its chain), the joints outside any group at `entry.rest`."""
    with warnings.catch_warnings():  # SRDF parts the URDF lacks are left out (the warning lists them)
        warnings.simplefilter("ignore", category=UserWarning)
        robot = bioik.load_robot(root / entry.urdf, group=None if entry.chain is None else [list(entry.chain)],
                                 srdf=None if entry.srdf is None else root / entry.srdf)
    if entry.rest is not None:
        names = set(robot.model.variable_names)
        state = next(s for s in robot.srdf.group_states if s.name == entry.rest)
        values = {j: v[0] for j, v in state.values if j in names and len(v) == 1}
        full = dict(zip(robot.model.variable_names, robot.frozen))
        robot = bioik.Robot(robot.model, None, groups=robot.groups, frozen={**full, **values}, source=robot.source,
                            srdf=robot.srdf, semantics=robot.semantics)
    if entry.frozen:
        robot = robot.with_frozen(dict(entry.frozen))
    return robot


def solve_groups(robot: bioik.Robot) -> list[str | None]:
    """The SRDF groups with an end effector among their tips (None: the robot's own tips)."""
    if robot.srdf is None or not robot.srdf.end_effectors or robot.semantics is None:
        return [None]
    ends = {e.parent_link for e in robot.srdf.end_effectors}
    out = [g for g, spec in robot.semantics.groups.items() if set(spec["tips"]) & ends and spec["joints"]
           and len(robot.with_group(g).variable_names) > 0]
    return [g for g in out if all(t in ends for t in robot.with_group(g).tips)] or [None]


def fk_error(robot: bioik.Robot, path: Path, rng: np.random.Generator, n: int = 5) -> float:
    """Largest difference (m, and rotation entries) of any link pose from yourdfpy's."""
    import yourdfpy

    urdf = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False, load_collision_meshes=False)
    worst = 0.0
    whole = robot.with_group(None) if robot.group.name != "all" else robot
    for _ in range(n):
        q = whole.random_configuration(rng)
        full = whole.full_configuration(q)
        cfg = {j: full[j] for j in urdf.actuated_joint_names if j in full}
        urdf.update_cfg(cfg)
        for link in robot.link_names:
            if link not in urdf.link_map:
                continue
            worst = max(worst, float(np.abs(whole.link_pose(q, link) - urdf.get_transform(link, urdf.base_link)).max()))
    return worst


def cover_stats(robot: bioik.Robot, cover, per_link: dict[str, float] | None = None) -> tuple[int, float, float, int]:
    """(mesh vertices outside the cover, median and max per-link overshoot in mm, triangles);
    `per_link` gets each link's overshoot."""
    from bioik.collision.link_geometry import link_meshes

    meshes = link_meshes(robot.model)
    outside, over, triangles = 0, [], 0
    rng = np.random.default_rng(0)
    for li, name in enumerate(cover.links):
        mesh = meshes.get(name)
        if mesh is None:
            continue
        triangles += len(mesh.faces)
        c, r = cover.centres[cover.link_of == li], cover.radii[cover.link_of == li]
        d = np.linalg.norm(mesh.vertices[:, None, :] - c[None], axis=2) - r[None]
        outside += int((d.min(axis=1) > 1e-9).sum())
        dirs = rng.normal(size=(200, 3))
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
        surface = (c[:, None, :] + r[:, None, None] * dirs[None]).reshape(-1, 3)
        inside_other = (np.linalg.norm(surface[:, None, :] - c[None], axis=2) < r[None] - 1e-9).any(axis=1)
        exposed = surface[~inside_other]
        if len(exposed):
            from trimesh.proximity import closest_point

            _, dist, _ = closest_point(mesh, exposed) if len(mesh.faces) else (None, np.zeros(1), None)
            over.append(1000 * float(np.max(dist)))
            if per_link is not None:
                per_link[name] = over[-1]
    return outside, (statistics.median(over) if over else 0.0), (max(over) if over else 0.0), triangles


def scene_for(robot: bioik.Robot, tips: list[str], rng: np.random.Generator) -> bioik.Scene:
    """One box beside the tips' workspace: its size and place from sampled tip positions,
    on the first side (+x, −x, ±y, ±z) where it touches none of the links the group cannot
    move (a hind leg's +x side is inside the body: every configuration would collide)."""
    P = np.array([robot.link_pose(robot.random_configuration(rng), tips[0])[:3, 3] for _ in range(200)])
    reach = float(np.percentile(np.linalg.norm(P - P.mean(axis=0), axis=1), 90))
    for side in np.vstack([np.eye(3), -np.eye(3)])[[0, 3, 1, 4, 2, 5]]:
        T = np.eye(4)
        T[:3, 3] = P.mean(axis=0) + 0.5 * reach * side
        scene = bioik.Scene()
        scene.add_box("box", (0.4 * reach, 0.4 * reach, 0.4 * reach), T)
        if not bioik.CollisionChecker(robot, scene).fixed_contacts():
            break
    return scene


def witness_targets(robot: bioik.Robot, checker, tips: list[str], n: int, rng: np.random.Generator, tries: int):
    """n collision-free configurations (the exact check) and their tip poses."""
    out = []
    for _ in range(tries):
        q = robot.random_configuration(rng)
        if checker.is_free(q):
            out.append([robot.link_pose(q, t) for t in tips])
            if len(out) == n:
                break
    return out


def solve_rate(robot: bioik.Robot, scene: bioik.Scene, targets, timeout: float, rng: np.random.Generator,
               max_iterations: int | None = None):
    """(solved, median ms, false successes) over `targets` from random seeds."""
    checker = bioik.CollisionChecker(robot, scene)
    solved, times, false = 0, [], 0
    for k, poses in enumerate(targets):
        goals = [bioik.PoseGoal(t, T) for t, T in zip(robot.tips, poses)]
        t0 = time.perf_counter()
        res = bioik.solve(robot, goals, seed=robot.random_configuration(rng), scene=scene, timeout=timeout,
                          max_iterations=max_iterations, random_seed=k)
        times.append(time.perf_counter() - t0)
        if res.success:
            if checker.is_free(res.q):
                solved += 1
            else:
                false += 1
    return solved, 1000 * statistics.median(times), false


def row(entry: Entry, root: Path, targets: int, timeout: float) -> list[str]:
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["BIOIK_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        robot = load(entry, root)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        load(entry, root)
        warm = time.perf_counter() - t0
        from bioik.collision.spheres import sphere_model

        t0 = time.perf_counter()
        cover = sphere_model(robot)
        build = time.perf_counter() - t0
        del os.environ["BIOIK_CACHE_DIR"]
    fk = fk_error(robot, root / entry.urdf, rng)
    outside, over_med, over_max, triangles = cover_stats(robot, cover)
    cells = [entry.name, str(len(robot.link_names)), str(len(robot.model.variables)), str(triangles),
             f"{cold:.2f} / {1000 * warm:.0f} ms", f"{build:.2f}", str(len(cover)), f"{over_med:.0f} / {over_max:.0f}",
             f"{fk:.0e}", str(outside)]
    results = []
    for g in solve_groups(robot):
        arm = robot if g is None else robot.with_group(g)
        scene = scene_for(arm, arm.tips, rng)
        goal_targets = witness_targets(arm, bioik.CollisionChecker(arm, scene), arm.tips, targets, rng, tries=20 * targets)
        if not goal_targets:
            results.append(f"{g or arm.tips[0]}: no collision-free witness in {20 * targets} samples")
            continue
        solved, median, false = solve_rate(arm, scene, goal_targets, timeout, rng)
        results.append(f"{g or arm.tips[0]}: {solved}/{len(goal_targets)}, {median:.2f} ms, {false} false")
    return cells + ["; ".join(results)]


def link_table(entry: Entry, root: Path) -> str:
    """Each covered link of the robot: spheres and overshoot (mm)."""
    from bioik.collision.spheres import sphere_model

    robot = load(entry, root)
    cover = sphere_model(robot)
    over: dict[str, float] = {}
    cover_stats(robot, cover, over)
    counts = cover.per_link()
    return "\n".join(f"    {entry.name} {link}: {counts[link]} spheres, overshoot {mm:.0f} mm" for link, mm in over.items())


def big_mesh_cover(folder: Path) -> str:
    """Cover build time of one 100,000-triangle collision mesh (a torus), cold and from the disk cache."""
    import trimesh

    from bioik.collision import spheres

    mesh = trimesh.creation.torus(0.1, 0.03, major_sections=400, minor_sections=125)
    (folder / "torus.stl").write_bytes(mesh.export(file_type="stl"))
    (folder / "r.urdf").write_text("""<robot name="torus"><link name="base"/>
  <link name="l1"><collision><geometry><mesh filename="torus.stl"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="l1"/><limit lower="-1" upper="1"/></joint></robot>""")
    os.environ["BIOIK_CACHE_DIR"] = str(folder / "cache")
    robot = bioik.load_robot(folder / "r.urdf")
    t0 = time.perf_counter()
    cover = spheres.sphere_model(robot)
    cold = time.perf_counter() - t0
    spheres._memory.clear()
    t0 = time.perf_counter()
    spheres.sphere_model(robot)
    cached = time.perf_counter() - t0
    del os.environ["BIOIK_CACHE_DIR"]
    _, med, worst, triangles = cover_stats(robot, cover)
    return (f"one mesh of {triangles} triangles: cover of {len(cover)} spheres in {cold:.2f} s cold, "
            f"{1000 * cached:.1f} ms from the disk cache; overshoot {worst:.0f} mm")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=0.1)
    ap.add_argument("--robots", nargs="*", default=[e.name for e in CORPUS])
    ap.add_argument("--per-link", action="store_true", help="also print each link's spheres and overshoot")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print(big_mesh_cover(Path(folder)), flush=True)
    root = robots_folder()
    if root is None:
        sys.exit("example-robot-data is not installed: pip install example-robot-data")
    head = ["robot", "links", "DoF", "triangles", "load cold / warm (s)", "cover (s)", "spheres", "overshoot med / max (mm)",
            "FK vs yourdfpy", "vertices outside", f"witness targets solved within {1000 * args.timeout:g} ms, median, false"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for entry in CORPUS:
        if entry.name in args.robots:
            try:
                print("| " + " | ".join(row(entry, root, args.targets, args.timeout)) + " |", flush=True)
                if args.per_link:
                    print(link_table(entry, root), flush=True)
            except Exception as e:  # noqa: BLE001 — the table says which robot failed and why
                print(f"| {entry.name} | failed: {type(e).__name__}: {str(e)[:200]} |", flush=True)


if __name__ == "__main__":
    main()
