"""The solve() API: input checks, reproducibility, callbacks, limits and honest success."""

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

import numpy as np
import pytest

import bioik
from bioik.model import UnknownNameError
from bioik.solvers.core.family import UnsupportedGoalsError

BUDGET = dict(timeout=3600.0, max_iterations=3000, random_seed=7)


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


def target(robot, rng):
    q = robot.random_configuration(rng)
    return robot.link_pose(q, robot.tips[0])


def pose_error(robot, q, T):
    A = robot.link_pose(q, robot.tips[0])
    R = A[:3, :3].T @ T[:3, :3]
    angle = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))
    return np.linalg.norm(A[:3, 3] - T[:3, 3]), angle


def test_result_fields(ur5, rng):
    res = bioik.solve(ur5, [bioik.PoseGoal("tool0", target(ur5, rng))], seed=ur5.center(), solver="lm", **BUDGET)
    assert res.success and res.solver == "lm"
    assert res.q.shape == (6,) and res.goal_errors.shape == (1, 2)
    assert res.goal_errors[0, 0] <= 1e-5 and res.goal_errors[0, 1] <= 1e-5
    assert res.cost < 1e-9 and res.time > 0 and res.iterations >= 1
    assert not res.seed_clipped


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(goals=[]), "no goals"),
        (dict(goals=[bioik.PositionGoal("tool00", [0.3, 0, 0.3])]), "unknown link 'tool00'.*tool0"),
        (dict(timeout=0.0), "timeout must be"),
        (dict(timeout=-1.0), "timeout must be"),
        (dict(solver="lmm"), "unknown solver 'lmm'.*lm"),
        (dict(damping_typo=1.0, solver="lm"), "unknown parameter.*damping_typo.*lm"),
        (dict(seed=[0.0, 0.0]), "seed must have 6 values"),
        (dict(seed=[0, 0, np.nan, 0, 0, 0]), "seed has NaN or inf at elbow_joint"),
        (dict(max_iterations=0), "max_iterations must be an integer >= 1; got 0"),
        (dict(acceptance="strict"), "acceptance must be one of"),
    ],
)
def test_bad_input_names_the_problem(ur5, kwargs, message):
    args = dict(goals=[bioik.PositionGoal("tool0", [0.3, 0.1, 0.3])])
    args.update(kwargs)
    with pytest.raises((ValueError, UnknownNameError), match=message):
        bioik.solve(ur5, **args)


@pytest.mark.parametrize(
    "pose, message",
    [
        (np.full((4, 4), np.nan), "NaN or inf"),
        (np.eye(3), r"4×4"),
        (np.diag([2.0, 1.0, 1.0, 1.0]), "not orthonormal"),
        (np.diag([-1.0, 1.0, 1.0, 1.0]), "determinant"),
        (np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 1, 1.0]]), "last row"),
    ],
)
def test_bad_poses(pose, message):
    with pytest.raises(ValueError, match=message):
        bioik.PoseGoal("tool0", pose)


def test_seed_outside_limits_is_clipped_and_reported(ur5, rng):
    seed = ur5.center()
    seed[1] = ur5.upper[1] + 1.0
    res = bioik.solve(ur5, [bioik.PoseGoal("tool0", target(ur5, rng))], seed=seed, solver="lm", **BUDGET)
    assert res.seed_clipped and res.success


def test_seed_in_any_array_form_gives_the_same_solve(ur5, rng):
    """The single-pose path copies a float64 seed on a fast path and converts the rest."""
    T = target(ur5, rng)
    seed = ur5.random_configuration(rng)
    reference = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], seed=seed, solver="lm", **BUDGET)
    assert reference.success and reference.iterations > 0
    for form in (seed.astype(">f8"), seed.tolist(), np.stack([seed, seed], axis=1)[:, 0]):
        res = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], seed=form, solver="lm", **BUDGET)
        np.testing.assert_array_equal(res.q, reference.q)
    with pytest.raises(ValueError, match="seed"):
        bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], seed=seed[None, :], solver="lm", **BUDGET)


@pytest.mark.parametrize("solver", ["lm", "kdl", "bio2_memetic", "bio2_lm"])
def test_reproducible_with_random_seed_and_budget(ur5, rng, solver):
    T = target(ur5, rng)
    runs = [bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], solver=solver, timeout=3600.0, max_iterations=40, random_seed=3) for _ in range(2)]
    np.testing.assert_array_equal(runs[0].q, runs[1].q)
    assert runs[0].iterations == runs[1].iterations


@pytest.mark.parametrize("solver", ["lm", "bio2_memetic"])
def test_rejecting_callback_keeps_searching(ur5, rng, solver):
    T = target(ur5, rng)
    seen = []

    def callback(q):
        seen.append(q.copy())
        return len(seen) >= 3  # reject the first two solutions

    res = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], solver=solver, callback=callback, **BUDGET)
    assert res.success and res.callback_calls == 3 and len(seen) == 3
    np.testing.assert_array_equal(res.q, seen[-1])
    assert res.restarts >= 2


@pytest.mark.parametrize("solver", ["lm", "kdl", "bio2_lm"])
def test_a_callback_is_first_offered_the_one_call_answer(ur5, rng, solver):
    """One pose goal with a callback: the first answer is the one-call kernel's (as fast as
    a solve without callback, and the same seeded answer); only a rejection moves on to
    the general search."""
    T = target(ur5, rng)
    seed = ur5.random_configuration(rng)
    plain = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], seed=seed, solver=solver, **BUDGET)
    offered = []
    asked = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], seed=seed, solver=solver, callback=lambda q: offered.append(q) is None, **BUDGET)
    assert plain.success and asked.success and asked.callback_calls == 1
    np.testing.assert_array_equal(asked.q, plain.q)
    np.testing.assert_array_equal(offered[0], plain.q)
    assert (asked.iterations, asked.restarts) == (plain.iterations, plain.restarts)


def test_callback_that_always_rejects_fails_honestly(ur5, rng):
    res = bioik.solve(ur5, [bioik.PoseGoal("tool0", target(ur5, rng))], solver="lm", callback=lambda q: False, timeout=3600.0, max_iterations=300, random_seed=1)
    assert not res.success and res.callback_calls >= 2


@pytest.mark.parametrize("solver", ["lm", "kdl", "bio2", "bio2_memetic", "bio2_memetic_l", "bio2_lm"])
def test_never_out_of_limits_and_never_a_false_success(solver):
    """Property test over random problems, checked with exact FK outside the solver."""
    rng = np.random.default_rng(11)
    for name in ("ur5", "panda"):
        robot = bioik.load_robot(name)
        tip = robot.tips[0]
        for k in range(6):
            T = robot.link_pose(robot.random_configuration(rng), tip)
            if k % 3 == 2:
                T[:3, 3] *= 3.0  # out of reach
            res = bioik.solve(robot, [bioik.PoseGoal(tip, T)], seed=robot.random_configuration(rng), solver=solver,
                              timeout=3600.0, max_iterations=60, random_seed=k)
            assert robot.within_limits(res.q)
            dp, angle = pose_error(robot, res.q, T)
            if res.success:
                assert dp <= 1e-5 and angle <= 1.0001e-5
            else:  # nor a true answer reported as a failure
                assert dp > 0.9999e-5 or angle > 0.9999e-5
            np.testing.assert_allclose(res.goal_errors[0], [dp, angle], atol=1e-7)


@pytest.mark.parametrize("verdict", [None, True, False])
def test_success_is_the_acceptance_test_whatever_the_search_thought(ur5, rng, verdict):
    """tolerance_scale=1e-12: lm's own test (at 1e-17) never passes, but its answer from a
    seed 1e-7 away passes the acceptance test (1e-5): a success, unless the callback —
    asked once, about that answer — rejects it."""
    q = ur5.random_configuration(rng)
    T = ur5.link_pose(q, "tool0")
    callback = None if verdict is None else (lambda x: verdict)
    res = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], seed=q + 1e-7, solver="lm", tolerance_scale=1e-12, callback=callback,
                      timeout=3600.0, max_iterations=1, random_seed=0)
    assert res.goal_errors[0].max() <= 1e-5
    assert res.success is (verdict is not False)
    assert res.callback_calls == (0 if verdict is None else 1)


@pytest.mark.parametrize("solver", ["lm", "bio2_lm", "relaxed"])
@pytest.mark.parametrize("weight", [1e-6, 1e6])
def test_reachable_targets_solve_whatever_the_weight(ur5, solver, weight):
    """Only the weights' ratios matter (the solvers see them divided by the largest primary
    one): at 1e-6, lm's damping used to swamp every step and it solved none."""
    rng = np.random.default_rng(5)
    for k in range(4):
        T = target(ur5, rng)
        goals = [bioik.PoseGoal("tool0", T, weight=weight)]
        if k % 2:  # the general path: a secondary goal at a tenth of the weight
            goals.append(bioik.CenterJointsGoal(weight=0.1 * weight, secondary=True))
        res = bioik.solve(ur5, goals, seed=ur5.random_configuration(rng), solver=solver, **BUDGET)
        assert res.success, (k, res.goal_errors)


def test_costs_are_weighted_by_the_goals_own_weights(ur5, rng):
    q, T = ur5.random_configuration(rng), target(ur5, rng)
    costs = []
    for w in (1.0, 1e-3):
        goals = [bioik.PoseGoal("tool0", T, weight=w), bioik.CenterJointsGoal(weight=0.5 * w, secondary=True)]
        p = bioik.Problem(ur5, goals)
        p.update(goals, q)
        costs.append(p.accept(q)[2:])
    np.testing.assert_allclose(costs[1], np.array(costs[0]) * 1e-6, rtol=1e-9)
    res = bioik.solve(ur5, [bioik.PoseGoal("tool0", T, weight=1e-3)], seed=q, solver="lm", timeout=3600.0, max_iterations=2)
    one = bioik.Problem(ur5, [bioik.PoseGoal("tool0", T)])
    one.update(one.goals, res.q)
    assert res.cost == pytest.approx(1e-6 * one.accept(res.q)[2], rel=1e-9)


def test_unreachable_target_gives_best_effort(ur5):
    T = np.eye(4)
    T[:3, 3] = [2.0, 0.0, 0.5]  # UR5 reaches about 0.95 m
    res = bioik.solve(ur5, [bioik.PositionGoal("tool0", T[:3, 3])], solver="lm", timeout=3600.0, max_iterations=400, random_seed=0)
    assert not res.success
    reach = np.linalg.norm(ur5.link_pose(res.q, "tool0")[:3, 3] - [0, 0, 0.089159])
    assert reach > 0.85  # stretched out towards the target
    assert res.goal_errors[0, 0] < 1.2


def test_solver_object_reuses_its_prepared_problem(ur5, rng):
    solver = bioik.Solver(ur5, "lm")
    for _ in range(3):
        res = solver.solve([bioik.PoseGoal("tool0", target(ur5, rng))], **BUDGET)
        assert res.success
    assert len(solver._prepared) == 1


def test_acceptance_modes(ur5, rng):
    T = target(ur5, rng)
    loose = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], solver="lm", acceptance="trac", position_tolerance=1e-3, rotation_tolerance=1e-3, **BUDGET)
    assert loose.success
    assert loose.goal_errors[0, 0] <= 1e-3 * np.sqrt(3) + 1e-12


def test_solvers_are_listed():
    names = bioik.solvers.names()
    for s in ("lm", "kdl", "bio2", "bio2_memetic", "bio2_memetic_l", "bio2_lm"):
        assert s in names


@dataclass
class PythonCost(bioik.Goal):
    """A goal of the PYTHON kind: a `Goal` subclass whose cost is a Python method, which only
    the solvers that call Python evaluate."""

    function: Callable[[np.ndarray], float]
    _: KW_ONLY
    weight: float = 1.0
    secondary: bool = False
    tolerance: float = 1e-5

    def cost(self, robot, q, frames_by_link) -> float:
        return float(self.function(q))


def test_python_goals_run_on_a_solver_that_calls_them(ur5, rng):
    """No solver named: a goal class evaluated in Python runs on optlib_lbfgsb, and the result says so."""
    T = target(ur5, rng)
    goal = PythonCost(lambda q: float(np.sum((ur5.link_pose(q, "tool0")[:3, 3] - T[:3, 3]) ** 2)))
    res = bioik.solve(ur5, [goal, bioik.OrientationGoal("tool0", T[:3, :3])], timeout=3600.0, max_iterations=2000, random_seed=0)
    assert res.success and res.solver == "optlib_lbfgsb"
    A = ur5.link_pose(res.q, "tool0")
    assert np.linalg.norm(A[:3, 3] - T[:3, 3]) <= 1e-5


PYTHON_SOLVERS = sorted(n for n, f in bioik.solvers.registry.SOLVERS.items() if f.python_goals)


def test_the_solvers_that_call_python_goals():
    assert PYTHON_SOLVERS == ["optlib_bfgs", "optlib_cg", "optlib_gd", "optlib_lbfgsb", "optlib_nelder_mead"]


@pytest.mark.parametrize("solver", sorted(set(bioik.solvers.registry.untrained_names()) - set(PYTHON_SOLVERS)))
def test_a_named_solver_refuses_python_goals_naming_those_that_take_them(ur5, solver):
    """A named solver runs as named: it never hands goals that call Python to another search."""
    goal = PythonCost(lambda q: 0.0)
    with pytest.raises(UnsupportedGoalsError, match=rf"solver '{solver}' cannot run goals that call Python \(PythonCost\)"
                       rf".*solvers that do: {', '.join(PYTHON_SOLVERS)}$") as e:
        bioik.solve(ur5, [goal], solver=solver)
    assert isinstance(e.value, bioik.BioikError) and isinstance(e.value, ValueError)


def test_parameters_for_the_default_solver_mean_lm_with_python_goals(ur5):
    with pytest.raises(UnsupportedGoalsError, match="solver 'lm' cannot run goals that call Python"):
        bioik.solve(ur5, [PythonCost(lambda q: 0.0)], damping=0.2)


IGNORING = ["bio1", "gd", "gd_c", "gd_c_4", "gd_r", "jac", "kdl", "trac", "trac_distance", "trac_manip1", "trac_manip2"]


def test_the_solvers_that_ignore_secondary_goals_are_declared():
    ignoring = sorted(n for n, f in bioik.solvers.registry.SOLVERS.items() if not f.secondary_goals)
    assert ignoring == sorted(IGNORING + ["neural", "neural2"])  # the neural ones: tests/solvers/neural


@pytest.mark.parametrize("solver", IGNORING)
def test_a_solver_that_ignores_secondary_goals_refuses_them(ur5, solver):
    T = ur5.link_pose(ur5.center(), "tool0")
    goals = [bioik.PositionGoal("tool0", T[:3, 3]), bioik.OrientationGoal("tool0", T[:3, :3], secondary=True)]
    with pytest.raises(UnsupportedGoalsError, match=rf"solver '{solver}' does not optimise secondary goals "
                       r"\(got secondary OrientationGoal\).*that does: bio2, .*lm, nullspace, .*relaxed$"):
        bioik.solve(ur5, goals, solver=solver)


@pytest.mark.parametrize("solver", ["lm", "kdl", "optlib_lbfgsb"])
def test_result_names_the_solver_on_every_path(ur5, rng, solver):
    """One-call path, general path (a callback), and the path of goals that call Python."""
    T = target(ur5, rng)
    one = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], solver=solver, **BUDGET)
    general = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], solver=solver, callback=lambda q: True, **BUDGET)
    assert one.solver == general.solver == solver
    if solver == "optlib_lbfgsb":
        python = bioik.solve(ur5, [bioik.PoseGoal("tool0", T), PythonCost(lambda q: 0.0)], solver=solver, **BUDGET)
        assert python.solver == solver


def test_kdl_refuses_goals_it_cannot_handle(ur5):
    with pytest.raises(ValueError, match="kdl.*only position, orientation and pose goals.*LookAtGoal"):
        bioik.solve(ur5, [bioik.LookAtGoal("tool0", [1.0, 0.0, 0.0])], solver="kdl")


def test_a_single_goal_instead_of_a_list_is_named(ur5):
    with pytest.raises(TypeError, match=r"goals must be a list of goals.*got one PositionGoal"):
        bioik.solve(ur5, bioik.PositionGoal("tool0", [0.3, 0.1, 0.3]))


def test_alternating_goal_structures_each_solve_their_own_goal(ur5, rng):
    """The cached problem of the last single pose-type goal is reused only for the same
    goal type, link and primary/secondary role."""
    q = ur5.random_configuration(rng)
    for link, make in [("tool0", bioik.PoseGoal), ("wrist_2_link", bioik.PoseGoal), ("tool0", bioik.PoseGoal),
                       ("tool0", lambda link, T: bioik.PositionGoal(link, T[:3, 3]))]:
        T = ur5.link_pose(q, link)
        res = bioik.solve(ur5, [make(link, T)], seed=ur5.center(), solver="lm", **BUDGET)
        assert res.success
        assert np.linalg.norm(ur5.link_pose(res.q, link)[:3, 3] - T[:3, 3]) <= 1e-5


def test_a_non_goal_in_the_goal_list_is_named(ur5):
    with pytest.raises(TypeError, match=r"goals\[1\] is a ndarray, not a bioik goal"):
        bioik.solve(ur5, [bioik.PositionGoal("tool0", [0.3, 0.1, 0.4]), np.eye(4)])
    with pytest.raises(TypeError, match="goals must be a list of goals"):
        bioik.solve(ur5, "tool0")


def test_a_callback_must_answer_true_or_false(ur5, rng):
    T = target(ur5, rng)
    with pytest.raises(TypeError, match="must return True .accept. or False .reject.; got 1"):
        bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], callback=lambda q: 1, **BUDGET)
    res = bioik.solve(ur5, [bioik.PoseGoal("tool0", T)], callback=lambda q: np.bool_(True), **BUDGET)
    assert res.success and res.callback_calls == 1


@pytest.mark.parametrize("callback", [5, "accept", [lambda q: True]])
def test_a_callback_that_is_not_a_function_is_named(ur5, rng, callback):
    with pytest.raises(TypeError, match=f"callback must be a function q -> True .accept. or False .reject., or None; got {type(callback).__name__}"):
        bioik.solve(ur5, [bioik.PoseGoal("tool0", target(ur5, rng))], callback=callback, **BUDGET)


def test_fields_reassigned_since_the_goal_was_built_are_checked_before_the_solve_reads_them(ur5, rng):
    goal = bioik.LineGoal("tool0", np.zeros(3), np.array([0.0, 0.0, 1.0]))
    goal.secondary = np.array([True, False])  # read by the prepared problem's key
    with pytest.raises(TypeError, match="LineGoal: secondary must be True or False"):
        bioik.solve(ur5, [goal], **BUDGET)
    collision = bioik.CollisionAvoidanceGoal()
    collision.margin = 10**400  # read by the exact collision check, before the problem is prepared
    with pytest.raises(ValueError, match="CollisionAvoidanceGoal: margin must be finite"):
        bioik.solve(ur5, [collision], **BUDGET)


def test_a_single_goal_with_a_scene_is_named(ur5):
    with pytest.raises(TypeError, match=r"goals must be a list of goals.*got one PositionGoal"):
        bioik.solve(ur5, bioik.PositionGoal("tool0", [0.3, 0.1, 0.3]), scene=bioik.Scene())


@pytest.mark.parametrize("seed", [1 + 2j, [10**400, 0, 0, 0, 0, 0], "abc"])
def test_a_seed_that_is_not_numbers_is_named_on_the_one_call_path(ur5, rng, seed):
    with pytest.raises(ValueError, match="seed must be 6 numbers"):
        bioik.solve(ur5, [bioik.PoseGoal("tool0", target(ur5, rng))], seed=seed, solver="lm", **BUDGET)


@pytest.mark.parametrize("solver", ["lm", "optlib_lbfgsb"])  # the one-call path and the general one
def test_a_pose_goal_field_reassigned_between_solves_is_checked(ur5, rng, solver):
    goal = bioik.PositionGoal("tool0", target(ur5, rng)[:3, 3])
    assert bioik.solve(ur5, [goal], solver=solver, **BUDGET).success
    goal.weight = []
    with pytest.raises(TypeError, match="PositionGoal: weight must be a number"):
        bioik.solve(ur5, [goal], solver=solver, **BUDGET)
    goal.weight, goal.link = 1.0, np.array(["tool0", "tool0"])  # the one-call path keys its problem by the link
    with pytest.raises(TypeError, match="PositionGoal: link must be a link name"):
        bioik.solve(ur5, [goal], solver=solver, **BUDGET)


def test_an_iteration_budget_past_the_float_range_is_refused(ur5, rng):
    with pytest.raises(ValueError, match="max_iterations must be an integer >= 1; got 1000000"):
        bioik.solve(ur5, [bioik.PositionGoal("tool0", target(ur5, rng)[:3, 3])], solver="optlib_lbfgsb",
                    timeout=1.0, max_iterations=10**400)
    assert bioik.solve(ur5, [bioik.PoseGoal("tool0", target(ur5, rng))], timeout=1.0, max_iterations=10**30).iterations < 10**30


@pytest.mark.parametrize("with_scene", [False, True], ids=["one-call path", "scene"])
def test_result_time_is_the_whole_call(ur5, rng, monkeypatch, with_scene):
    """What runs before the search's clock starts (the goals' update, a scene's exact-check
    setup and fixed-link check) is in `Result.time`, though not in the timeout: here it is
    made to take 30 ms, and a 5 ms timeout still leaves the search its time."""
    import time

    from bioik.collision.guard import ExactChecks
    from bioik.solvers.workspace import Workspace

    slow = ExactChecks.checker if with_scene else Workspace.problem

    def slowly(*args, **kwargs):
        time.sleep(0.03)
        return slow(*args, **kwargs)

    T = target(ur5, rng)
    kwargs = {}
    if with_scene:
        scene = bioik.Scene()
        scene.add_sphere("far", 0.05, np.array([[1, 0, 0, 3.0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]]))
        kwargs["scene"] = scene
    solver = bioik.Solver(ur5, "lm")
    assert solver.solve([bioik.PoseGoal("tool0", T)], seed=ur5.center(), timeout=1.0, **kwargs).success  # prepared
    monkeypatch.setattr(ExactChecks if with_scene else Workspace, "checker" if with_scene else "problem", slowly)
    res = solver.solve([bioik.PoseGoal("tool0", T)], seed=ur5.center(), timeout=0.005, random_seed=1, **kwargs)
    assert res.success
    assert res.time >= 0.03
