"""308 seeded solves across solvers, robots and goal structures, and a digest of each.

A refactor must leave every seeded result bit-identical: `test_seeded_solves.py` compares
these digests with `data/seeded_solves.json`, recorded before the refactor. Floating-point
results of compiled code depend on the CPU's instruction set (numba compiles for the host),
so the file keeps one record per CPU; to add a record for a new CPU, check out the commit
that last changed the file and run `python3 tests/seeded_solves.py --record` there.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

import bioik

DATA = Path(__file__).parent / "data" / "seeded_solves.json"

#: Solvers whose search is deterministic given (random_seed, max_iterations).
SOLVERS = ["lm", "bio2_lm", "bio2_memetic", "bio2", "bio2_memetic_l", "kdl", "jac", "nullspace", "gd_c_4", "gd_c", "gd_r", "bio1",
           "relaxed", "optlib_lbfgsb"]
ROBOTS = ["ur5", "panda", "iiwa14"]


def cpu_key() -> str:
    """The host CPU as numba compiles for it: name and feature string."""
    from numba.core.codegen import get_host_cpu_features  # noqa: PLC0415
    import llvmlite.binding as ll  # noqa: PLC0415

    return f"{ll.get_host_cpu_name()}:{hashlib.sha1(get_host_cpu_features().encode()).hexdigest()[:12]}"


def digest(res: bioik.Result) -> str:
    """What the search computed: q, its iterations and restarts, the cost. Not `success`,
    which is the acceptance test of q (tested on its own), not an output of the search."""
    h = hashlib.sha1(res.q.tobytes())
    h.update(f"{res.iterations}:{res.restarts}:{res.cost!r}".encode())
    return h.hexdigest()[:16]


def cases():
    """(name, robot, goals, seed, solver, max_iterations, random_seed) for 308 solves: single
    pose goals (the one-call path), from a seed and from a random start, a position goal,
    and a pose goal with a secondary goal (the general path)."""
    out = []
    for robot_name in ROBOTS:
        robot = bioik.load_robot(robot_name)
        tip = robot.tips[0]
        rng = np.random.default_rng(7)
        for solver in SOLVERS:
            budget = 30 if solver in ("relaxed", "optlib_lbfgsb") else 200
            for k in range(8 if robot_name == "ur5" else 7):
                T = robot.link_pose(robot.random_configuration(rng), tip)
                seed = robot.random_configuration(rng)
                kind = k % 4
                if kind == 0:
                    goals, s = [bioik.PoseGoal(tip, T)], seed
                elif kind == 1:
                    goals, s = [bioik.PoseGoal(tip, T)], None
                elif kind == 2:
                    goals, s = [bioik.PositionGoal(tip, T[:3, 3])], seed
                else:
                    goals, s = [bioik.PoseGoal(tip, T), bioik.CenterJointsGoal(weight=0.1, secondary=True)], seed
                if solver in ("gd_r", "gd_c", "bio1", "gd_c_4", "kdl", "jac") and kind == 3:
                    goals = goals[:1]  # these solvers take no secondary goals (or ignore them)
                out.append((f"{robot_name}/{solver}/{k}", robot, goals, s, solver, budget, 11 * k + 3))
    return out


def run() -> dict[str, str]:
    return {name: digest(bioik.solve(robot, goals, seed=seed, solver=solver, timeout=3600.0, max_iterations=budget,
                                     random_seed=random_seed))
            for name, robot, goals, seed, solver, budget, random_seed in cases()}


def recorded() -> dict[str, str] | None:
    """This CPU's recorded digests, or None."""
    if not DATA.exists():
        return None
    return json.loads(DATA.read_text()).get(cpu_key())


if __name__ == "__main__" and "--record" in sys.argv:
    DATA.parent.mkdir(exist_ok=True)
    data = json.loads(DATA.read_text()) if DATA.exists() else {}
    data[cpu_key()] = run()
    DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(data[cpu_key()])} digests for {cpu_key()} in {DATA}")
