"""Why `bio1` misses 1e-3 m / 1e-3 rad on a few targets: seeded failures and a traced search.

`find`: FK targets as benchmarks/reproduce (`common._problem`: targets, then random starts,
RNG 0; solve i with random_seed i), each solved with a generation budget instead of a
timeout (4000 generations ≈ 200 ms on ur5 and iiwa14 here), failures listed.
`trace`: one target's search replayed in Python with the compiled operators of
`bioik.solvers.evolutionary.bio1` (the replay is checked against `bioik.solve`: same q,
same generations), per wipe cycle: its length and best balanced fitness Ω̄ (4.16), and
at the end how often the wipe probe (4.22, second part) fails at Φ and at points around
the exact solution with the same Ω̄ (an isotropic neighbourhood).

Usage:
  python benchmarks/bio1_stall.py find --robot ur5 --targets 1000 [--first 0] [--gens 4000] [--rot 1e-3]
  python benchmarks/bio1_stall.py trace --robot ur5 --targets 1000 --index 219 [--gens 4000]
(`--targets` is the size of the drawn target set: target i depends on it.)
"""

from __future__ import annotations

import argparse

import numpy as np

import bioik
from bioik.bench.targets import pose_errors
from bioik.problem import Problem
from bioik.problem.layout import unpack
from bioik.solvers.core.workspace import search_start
from bioik.solvers.evolutionary import bio1 as B


def targets(robot: bioik.Robot, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The tip poses and starts of `benchmarks/reproduce/common.py` (RNG 0, random starts)."""
    rng = np.random.default_rng(0)
    poses = robot.fk(robot.random_configuration(rng, count), links=[robot.tips[0]])[:, 0]
    return poses, robot.random_configuration(rng, count)


def find(robot: bioik.Robot, poses, starts, first: int, gens: int, rot: float) -> None:
    tip = robot.tips[0]
    kw = dict(solver="bio1", timeout=60.0, max_iterations=gens, position_tolerance=1e-3, rotation_tolerance=rot)
    ok, its = [], []
    for i in range(first, len(poses)):
        res = bioik.solve(robot, [bioik.PoseGoal(tip, poses[i])], seed=starts[i], random_seed=i, **kw)
        dp, dr = pose_errors(robot, tip, poses[i], res.q)
        ok.append(robot.within_limits(res.q) and dp <= 1e-3 and dr <= rot)
        its.append(res.iterations)
        if not ok[-1]:
            print(f"fail {i}: {res.iterations} generations, {res.restarts} wipes, {dp * 1e3:.2f} mm, {dr * 1e3:.2f} mrad", flush=True)
    print(f"{np.mean(ok) * 100:.2f} % of {len(ok)} within {gens} generations; mean {np.mean(its):.0f}, median {np.median(its):.0f}")


def replay(robot, T, q0, seed, gens, rot):
    """`bio1.bio1_search` step by step (default settings); per generation (Ω̄(x*), Ω̄(Φ), wiped)."""
    goals = [bioik.PoseGoal(robot.tips[0], T)]
    p = Problem(robot, goals)
    p.update(goals, q0, 1e-3, rot)
    prob = unpack(p.ibuf, p.fbuf)
    bounds = prob.bounds
    lo, hi, slo, shi = bounds
    q = q0.copy()
    rng = search_start(np.array([1e18, gens, seed, 0, 0.0]), slo, shi, q)
    ctx = B.context(p.ibuf, p.fbuf)
    errors = np.empty((1, 2))
    P, kappa, n = 12, 4, q.size
    pop = B.Population(np.empty((P, n)), np.zeros((P, n)), np.empty(P), np.empty(P))
    kids = B.Offspring(np.empty((P, n)), np.empty((P, n)), np.empty(P), np.empty(P, dtype=np.int64), np.empty(n))
    X, Gr, fit, xi = pop

    def initialise():
        B.initialize(X, Gr, q, slo, shi, rng)
        B.evaluate_population(ctx, X, fit, rng, False)
        B.sort_population(X, Gr, fit, kids.rec)
        B.extinction_factors(fit, xi)

    initialise()
    phi = q.copy()
    phi_bar = B.fitness(ctx, phi, rng, True)
    done = B.accepted(ctx, phi, prob.gt, 0, errors)
    log = []
    while not done and len(log) < gens:
        B.generation(ctx, pop, kids, kappa, bounds, shi - slo, rng, 1e18, (True, True, True))
        best = B.fitness(ctx, X[0], rng, True)
        progress = best < phi_bar
        if progress:
            phi[:], phi_bar = X[0], best
            done = B.accepted(ctx, phi, prob.gt, 0, errors)
        else:
            progress = any(B.fitness(ctx, X[k], rng, True) < phi_bar for k in range(1, kappa))
        wiped = not done and not progress and not B.exploitable(ctx, X[0], best, lo, hi, rng)
        if wiped:
            initialise()
        log.append((best, phi_bar, wiped))
    return done, phi, log, ctx, lo, hi


def trace(robot, T, q0, index: int, gens: int, rot: float) -> None:
    tip = robot.tips[0]
    done, phi, log, ctx, lo, hi = replay(robot, T, q0, index, gens, rot)
    res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=q0, random_seed=index, solver="bio1", timeout=60.0,
                      max_iterations=gens, position_tolerance=1e-3, rotation_tolerance=rot)
    dp, dr = pose_errors(robot, tip, T, phi)
    # bioik.solve may hand back Φ moved by whole turns (towards the seed): compare the poses
    assert res.iterations == len(log) and np.allclose(pose_errors(robot, tip, T, res.q), (dp, dr), rtol=1e-6, atol=1e-12), \
        "the replay no longer matches bio1"
    print(f"target {index}: solved {done} after {len(log)} generations; Φ at {dp * 1e3:.2f} mm, {dr * 1e3:.2f} mrad")
    start = 0
    for g, (best, phi_bar, wiped) in enumerate(log, 1):
        if wiped or g == len(log):
            cyc = [b for b, _, _ in log[start:g]]
            k = int(np.argmin(cyc))
            print(f"  cycle at {start:5d}: {g - start:4d} generations, best Ω̄(x*) {cyc[k]:.2e} (generation {start + k + 1}), "
                  f"Ω̄(Φ) {phi_bar:.2e}{'' if wiped else ' (end)'}")
            start = g
    st = np.array([7], dtype=np.uint64)
    f = B.fitness(ctx, phi, st, True)
    at_phi = np.mean([not B.exploitable(ctx, phi.copy(), f, lo, hi, st) for _ in range(400)])
    sol = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=phi, solver="lm", timeout=1.0, position_tolerance=1e-9,
                      rotation_tolerance=1e-9).q
    rng, around = np.random.default_rng(index), []
    for _ in range(400):
        d = rng.normal(size=sol.size)
        x = sol + d * 1e-3 / np.linalg.norm(d)
        x = sol + (x - sol) * f / B.fitness(ctx, x, st, True)  # about Ω̄(Φ): Ω̄ is a norm, near linear here
        around.append(not B.exploitable(ctx, x, B.fitness(ctx, x, st, True), lo, hi, st))
    smin = np.linalg.svd(robot.jacobian(sol, tip), compute_uv=False)[-1]
    print(f"wipe probe fails: at Φ {at_phi:.2f}, around the solution at the same Ω̄ {np.mean(around):.2f}; "
          f"|Φ − solution| {np.abs(phi - sol).max():.3f} rad; smallest singular value of J there {smin:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["find", "trace"])
    ap.add_argument("--robot", default="ur5")
    ap.add_argument("--targets", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--gens", type=int, default=4000)
    ap.add_argument("--rot", type=float, default=1e-3)
    a = ap.parse_args()
    robot = bioik.load_robot(a.robot)
    poses, starts = targets(robot, a.targets)
    if a.what == "find":
        find(robot, poses, starts, a.first, a.gens, a.rot)
    else:
        trace(robot, poses[a.index], starts[a.index], a.index, a.gens, a.rot)


if __name__ == "__main__":
    main()
