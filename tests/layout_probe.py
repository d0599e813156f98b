"""Run by tests/test_compile_once.py in a process of its own: every public entry is called
once as a user would first call it (or warmed up as its owner documents), then again with
array inputs of every layout a user may pass (read-only, strided, nested lists, float32,
Fortran order). Prints, as JSON, each entry's numba specializations that the second round
added. Any is a compile (or a disk-cache load) inside a timed call; a new process starts
with no specialization loaded, so what earlier calls loaded cannot hide one."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core.registry import CPUDispatcher

import bioik
from bioik import scenes
from bioik.bench import runner
from bioik.bench.store import ResultStore
from bioik.collision import sphere_model
from bioik.decoupling import Decoupler
from bioik.passage_solver import PassageSolver


def _signatures() -> dict[int, tuple[CPUDispatcher, set]]:
    """Every compiled function of bioik's loaded modules with the signatures it holds."""
    out = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("bioik") and mod is not None:
            for v in list(vars(mod).values()):
                if isinstance(v, CPUDispatcher):
                    out[id(v)] = (v, set(v.overloads))
    return out


def _added(before: dict[int, tuple[CPUDispatcher, set]]) -> list[str]:
    return sorted(f"{d.py_func.__module__}.{d.__name__}{sig}" for k, (d, sigs) in _signatures().items()
                  for sig in sigs - before.get(k, (d, set()))[1])


def layouts(a: Any) -> dict[str, Any]:
    """`a` as a user may pass it: read-only, strided, nested lists, float32, Fortran order."""
    a = np.asarray(a, dtype=float)
    readonly = a.copy()
    readonly.flags.writeable = False
    wide = np.zeros((*a.shape[:-1], 2 * a.shape[-1]))
    wide[..., ::2] = a
    return {"read-only": readonly, "strided": wide[..., ::2], "list": a.tolist(), "float32": a.astype(np.float32),
            "fortran": np.asfortranarray(a)}


def probe(report: dict[str, list[str]], name: str, call: Callable[[Any, Any], Any], T: np.ndarray, seed: np.ndarray) -> None:
    """call(T, seed) once as given, then with T and seed in every layout."""
    call(T, seed)
    before = _signatures()
    for Tv, sv in zip(layouts(T).values(), layouts(seed).values(), strict=True):
        call(Tv, sv)
    report[name] = _added(before)


def main() -> None:
    report: dict[str, list[str]] = {}
    ur5 = bioik.load_robot("ur5")
    tip = ur5.tips[0]
    rng = np.random.default_rng(0)
    T, seed = ur5.link_pose(ur5.random_configuration(rng), tip), ur5.random_configuration(rng)
    probe(report, "solve", lambda T, s: bioik.solve(ur5, [bioik.PoseGoal(tip, T)], s, random_seed=1), T, seed)
    probe(report, "solve, position", lambda T, s: bioik.solve(ur5, [bioik.PositionGoal(tip, np.asarray(T)[:3, 3])], s,
                                                              random_seed=1), T, seed)
    solver = bioik.Solver(ur5, "lm")
    probe(report, "Solver, two goals", lambda T, s: solver.solve([bioik.PoseGoal(tip, T), bioik.CenterJointsGoal(weight=0.01)],
                                                                 s, random_seed=1, max_iterations=200), T, seed)
    probe(report, "solve_batch", lambda T, s: bioik.solve_batch(ur5, [[bioik.PoseGoal(tip, T)]] * 3, [s] * 3, random_seed=1,
                                                                threads=1), T, seed)
    poses = np.stack([T] * 3)
    for layout, Ts in {"as given": poses, **layouts(poses)}.items():
        bioik.solve_batch(ur5, bioik.GoalBatch([bioik.PoseGoal(tip, T)], Ts), np.stack([seed] * 3), random_seed=1, threads=1)
        if layout == "as given":
            before = _signatures()
    report["solve_batch, GoalBatch"] = _added(before)
    probe(report, "track", lambda T, s: bioik.track(ur5, [[bioik.PoseGoal(tip, T)]] * 3, s), T, seed)
    probe(report, "rollout", lambda T, s: bioik.rollout(ur5, [bioik.PoseGoal(tip, T)], s, iterations=5), T, seed)

    robot = bioik.load_robot(scenes.ROBOT)
    cover = sphere_model(robot, links=scenes.ENDOSCOPE_COVER)
    shelf = scenes.load("Shelf")
    targets = shelf.targets()
    probe(report, "solve, scene", lambda T, s: bioik.solve(robot, [bioik.PoseGoal(scenes.TIP, T)], s, scene=shelf.scene,
                                                           random_seed=1, timeout=0.05), targets.poses[0], targets.witnesses[0])
    passage = PassageSolver(robot, scenes.TIP, "endoscope_mount", shelf.scene, spheres=cover, tool_radius=0.004)
    passage.warm_up(targets.poses[0])
    before = _signatures()
    for k in range(1, 6):  # targets deep in the shelf, where a passage is found and followed
        for Tv, sv in zip(layouts(targets.poses[k]).values(), layouts(targets.witnesses[k]).values(), strict=True):
            passage.solve(Tv, seed=sv, random_seed=k, timeout=0.05)
            passage.finder.find(np.asarray(Tv, dtype=float)[:3, 3], np.asarray(Tv, dtype=float)[:3, 2])
    report["PassageSolver and PassageFinder, after warm_up"] = _added(before)
    tank = scenes.load("HydrogenTank")
    op = tank.opening
    decoupler = Decoupler(robot, scenes.TIP, "endoscope_mount", tank.scene, (op.point, op.axis, op.diameter), spheres=cover)
    probe(report, "Decoupler", lambda T, s: decoupler.solve(T, random_seed=1, timeout=0.05),
          tank.targets().poses[0], tank.targets().witnesses[0])

    # the bench's solvers: nothing after its own warm-up
    marks: list[dict] = []
    warm_up = runner.Solving.warm_up

    def warm_then_mark(self: runner.Solving) -> None:
        warm_up(self)
        marks.append(_signatures())

    runner.Solving.warm_up = warm_then_mark
    store = ResultStore(os.path.join(tempfile.mkdtemp(), "results.db"), create=True)
    for robot_, name, test, solver_name in [(ur5, "ur5", "fkik", "lm"), (robot, "elise_ur10", "scene:Shelf", "lm"),
                                            (robot, "elise_ur10", "scene:Shelf", "passage")]:
        runner.run_experiment(store, robot_, name, test, solver_name, 8, 0.02, progress=False)
        report[f"bioik bench run {name} {test} {solver_name}"] = _added(marks[-1])
    print(json.dumps(report))


if __name__ == "__main__":
    main()
