"""Every solver parameter at the edges of its range: does the solve keep its timeout, stay
within limits and keep its arrays in bounds?

For each solver and each of its parameters, the values tried are the range's low end (0 or
1 for counts), 1, and its high end (other parameters at their defaults); each value solves
a few UR5 pose queries (reachable and unreachable) with a short timeout and reports the
slowest wall time and the overshoot past the timeout. With NUMBA_BOUNDSCHECK=1 in the
environment (and a fresh, empty NUMBA_CACHE_DIR: numba would reuse kernels compiled without
the check, and re-validates a cached kernel only against its own file, not the files of
the kernels it calls), an index out of bounds in any kernel raises IndexError instead of
reading past an array.

With --max-iterations N the solves run on that iteration budget (seeded, no timeout)
instead: the check of the bounds and the limits alone, the same on every machine
(`tests/solvers/test_param_edges.py` runs it so under NUMBA_BOUNDSCHECK=1).

Usage: python3 benchmarks/param_edges.py [--solvers lm bio1 …] [--timeout 0.005] [--queries 3]
                                         [--max-iterations N]
Exit status 1 if any answer is outside the limits, any solve raised, or any overshoot
exceeded --slack (default 0.5 ms, the timeout target; not checked with --max-iterations).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import bioik
from bioik.solvers import registry
from bioik.solvers.core.params import RELATIONS, SPECS


def edge_values(name: str) -> list[float]:
    """The low end, 1 (if in range) and the high end of a parameter's range."""
    spec = SPECS[name]
    low = spec.low if not spec.low_open else (spec.low + 1 if spec.integer else max(spec.low + 1e-12, spec.low * (1 + 1e-12)))
    high = spec.high if math.isfinite(spec.high) else 1e12
    values = [low, 1.0, high]
    values = [v for v in values if (spec.low < v if spec.low_open else spec.low <= v) and v <= spec.high]
    return sorted({int(v) if spec.integer else v for v in values})


def consistent(params: dict, defaults: dict) -> dict:
    """`params` with the parameters another one bounds moved inside that bound."""
    full = {**defaults, **params}
    for name, bound, strict in RELATIONS:
        if name in full and bound in full:
            top = full[bound] - 1 if strict else full[bound]
            if full[name] > top and name not in params:
                params = {**params, name: max(int(top), 0)}
            elif full[name] > top:  # the bound as large as its range allows, the parameter below it
                high = int(SPECS[bound].high)
                params = {**params, bound: max(int(full[name]) + (1 if strict else 0), int(full[bound]))}
                params[bound] = min(params[bound], high)
                params[name] = min(int(full[name]), params[bound] - (1 if strict else 0))
    return params


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solvers", nargs="+", default=registry.names())
    ap.add_argument("--timeout", type=float, default=0.005)
    ap.add_argument("--queries", type=int, default=3)
    ap.add_argument("--slack", type=float, default=0.0005)
    ap.add_argument("--max-iterations", type=int, help="solve on this iteration budget instead of the timeout")
    args = ap.parse_args()
    budget = {} if args.max_iterations is None else {"max_iterations": args.max_iterations, "random_seed": 0}
    timeout = args.timeout if args.max_iterations is None else 3600.0
    robot = bioik.load_robot("ur5")
    rng = np.random.default_rng(0)
    tip = robot.tips[0]
    goals = []
    for k in range(args.queries):
        T = robot.link_pose(robot.random_configuration(rng), tip)
        if k % 2:
            T = T.copy()
            T[:3, 3] += 5.0  # out of reach: the solver runs to its timeout
        goals.append(([bioik.PoseGoal(tip, T)], robot.random_configuration(rng)))
    bad = 0
    print("| solver | parameter | value | slowest solve ms | overshoot ms | solved | problem |")
    print("|---|---|---|---|---|---|---|")
    for solver in args.solvers:
        defaults = dict(registry.SOLVERS[solver].defaults)
        bioik.solve(robot, goals[0][0], seed=goals[0][1], solver=solver, timeout=timeout, **budget)  # compile before timing
        for name in defaults:
            for value in edge_values(name):
                params = consistent({name: value}, defaults)
                problem, slowest, solved = "", 0.0, 0
                try:
                    s = bioik.Solver(robot, solver, timeout=timeout, **params)
                    s.solve(goals[0][0], seed=goals[0][1], **budget)  # preparation (not in the timeout)
                    for g, seed in goals:
                        t0 = time.perf_counter()
                        res = s.solve(g, seed=seed, **budget)
                        slowest = max(slowest, time.perf_counter() - t0)
                        solved += bool(res.success)
                        if not robot.within_limits(res.q):
                            problem = "outside limits"
                except Exception as e:  # noqa: BLE001 — reported, the sweep goes on
                    problem = f"{type(e).__name__}: {e}"[:120]
                over = slowest - timeout
                if problem or (over > args.slack and not budget):
                    bad += 1
                shown = ", ".join(f"{k}={v:g}" for k, v in params.items())
                print(f"| {solver} | {name} | {shown} | {1e3 * slowest:.2f} | {1e3 * over:+.2f} | {solved}/{len(goals)} | {problem} |",
                      flush=True)
    print(f"{bad} parameter values broke the timeout (+{1e3 * args.slack:g} ms), the limits or the bounds")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
