"""The compiled free tries among obstacles (`bioik.solvers.core.free_tries`): the same tries
as the Python loop they replace, answer for answer; a proven answer's report is the
acceptance test's own; an answer the cover cannot prove goes to coal; a user's callback
that rejects makes the tries go on."""

import copy

import numpy as np
import pytest

import bioik
import bioik.solvers.one_call as one_call
from bioik import CollisionAvoidanceGoal, PoseGoal
from bioik.collision import CoverProof
from bioik.solvers.core import free_tries as tries
from bioik.solvers.core.pose_query import MODE, POSITION_TOL, ROTATION_TOL, WEIGHT

ROBOT = bioik.load_robot("ur5")
TIP = ROBOT.tips[0]


def table_cell() -> tuple[bioik.Scene, bioik.CollisionChecker]:
    """ur5 3 cm above a table, with a post beside it."""
    scene = bioik.Scene()
    table, post = np.eye(4), np.eye(4)
    table[2, 3] = -0.05
    post[:3, 3] = (0.45, 0.2, 0.15)
    scene.add_box("table", (1.6, 1.6, 0.04), table)
    scene.add_box("post", (0.1, 0.1, 0.3), post)
    return scene, bioik.CollisionChecker(ROBOT, scene)


SCENE, CHECKER = table_cell()
RNG = np.random.default_rng(5)
TARGETS = [ROBOT.link_pose(q, TIP) for q in ROBOT.random_configuration(RNG, 40) if CHECKER.is_free(q)][:12]
SEEDS = ROBOT.random_configuration(RNG, len(TARGETS))


def solve_all(**kw) -> list[bioik.Result]:
    return [bioik.solve(ROBOT, [PoseGoal(TIP, T)], seed=s, scene=SCENE, random_seed=7 + i, **kw)
            for i, (T, s) in enumerate(zip(TARGETS, SEEDS))]


def test_the_compiled_tries_give_the_python_tries_answers(monkeypatch):
    """With time to spare (the tries end by their count and iteration cap, not the clock),
    both run the same tries from the same seeds: bit-identical answers and counts. (The
    search with the collision costs after failed tries is timed, so it is left out.)"""
    monkeypatch.setattr(one_call, "FREE_FIRST_TIME", 60.0)
    failed = bioik.Result(np.zeros(ROBOT.dof), False, np.inf, np.zeros((2, 2)), 0.0)
    monkeypatch.setattr(bioik.Solver, "_search", lambda self, *a, **k: copy.deepcopy(failed))
    taken = []
    compiled_path = one_call.OneCallPath._free_first_compiled
    monkeypatch.setattr(one_call.OneCallPath, "_free_first_compiled", lambda *a: taken.append(1) or compiled_path(*a))
    compiled = solve_all(timeout=60.0)
    assert len(taken) == len(TARGETS)  # every solve took the compiled tries
    monkeypatch.setattr(one_call.OneCallPath, "_compiled_tries", lambda self, problem, callback: None)
    python = solve_all(timeout=60.0)
    assert len(taken) == len(TARGETS)
    assert sum(r.success for r in compiled) >= len(TARGETS) - 2  # the tries alone answer most of an open cell
    for a, b in zip(compiled, python):
        assert a.q.tobytes() == b.q.tobytes()
        assert (a.success, a.iterations, a.restarts, a.callback_calls, a.seed_clipped) == (
            b.success, b.iterations, b.restarts, b.callback_calls, b.seed_clipped)
        assert a.goal_errors.tobytes() == b.goal_errors.tobytes() and a.cost == b.cost
        assert not a.success or CHECKER.is_free(a.q)


def test_a_callback_that_rejects_makes_the_tries_go_on():
    seen = []

    def second_answer_only(q):
        seen.append(q.copy())
        return len(seen) % 2 == 0

    res = bioik.solve(ROBOT, [PoseGoal(TIP, TARGETS[0])], seed=SEEDS[0], scene=SCENE, callback=second_answer_only,
                      random_seed=3)
    assert res.success and CHECKER.is_free(res.q)
    assert len(seen) >= 2 and np.array_equal(seen[-1], res.q)
    assert res.callback_calls >= len(seen)


def free_kernel_call(proof: CoverProof, seed: np.ndarray, target: np.ndarray):
    """One call of lm's compiled tries for `target` from `seed`, with the solver's own
    prepared problems: (what it found, the state, the answer, the whole problem)."""
    solver = bioik.Solver(ROBOT, "lm")
    goals = [PoseGoal(TIP, target), CollisionAvoidanceGoal(SCENE)]
    whole, free = solver.problem(goals), solver.problem(goals[:1])
    whole.update(goals)
    free.update(goals[:1])
    io = one_call.Workspace(ROBOT, solver.settings, solver._prepare).io
    io[MODE], io[WEIGHT], io[POSITION_TOL], io[ROTATION_TOL] = 0, 1.0, 1e-5, 1e-5
    state = np.zeros(tries.STATE)
    state[tries.END], state[tries.CAP], state[tries.TRIES], state[tries.SEEDED] = np.inf, 256, 16, 1
    q = seed.copy()
    found = solver.family.single_pose_free(free.ibuf, free.fbuf, goals[0].params(ROBOT), q, io, state, proof.arguments(),
                                           whole.ibuf, whole.fbuf, whole.report)
    return found, state, q, whole


def test_a_proven_answer_carries_the_acceptance_tests_report():
    proof = CoverProof(ROBOT, bioik.collision.cover_proof.proof_cover(ROBOT), SCENE)
    found, state, q, whole = free_kernel_call(proof, SEEDS[0], TARGETS[0])
    assert found == tries.PROVEN and state[tries.BITS] == 0 and proof.unproven(q) == 0
    reported = whole.reported()
    accepted = whole.accept(q)
    assert reported[0] == accepted[0] and reported[1].tobytes() == accepted[1].tobytes()
    assert reported[2:] == accepted[2:]
    assert state[tries.K] >= 1 and state[tries.ITS] >= 1


def test_an_answer_the_cover_cannot_prove_goes_back_with_its_bits():
    proof = CoverProof(ROBOT, bioik.collision.cover_proof.proof_cover(ROBOT), SCENE, margin=5.0)  # nothing keeps 5 m
    found, state, q, _ = free_kernel_call(proof, SEEDS[0], TARGETS[0])
    assert found == tries.UNPROVEN and int(state[tries.BITS]) == proof.unproven(q) != 0
    assert state[tries.K] >= 1  # a next call goes on with the next try


@pytest.mark.parametrize("seed", [np.full(6, np.nan), np.r_[np.inf, np.zeros(5)]])
def test_a_seed_that_is_not_finite_is_refused_by_name(seed):
    with pytest.raises(ValueError, match="seed"):
        bioik.solve(ROBOT, [PoseGoal(TIP, TARGETS[0])], seed=seed, scene=SCENE)
