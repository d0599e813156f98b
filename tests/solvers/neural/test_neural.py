"""The neural solvers [R 3.6]: network files, compiled inference, training, the feedback loop."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace

import numpy as np
import pytest

import bioik
from bioik.solvers.neural.network import MissingNetworkError, Network, NetworkMismatchError, mlp_forward, mlp_width
from bioik.solvers.registry import NETWORK_SOLVERS, SOLVERS

ROBOT = bioik.load_robot("ur5")
TIP = ROBOT.tips[0]


def random_network(mode: str = "neural2", hidden=(16, 12), seed: int = 0) -> Network:
    """An untrained network of the right shape for ROBOT (for file and inference tests)."""
    n = ROBOT.dof
    sizes = (3 * n, *hidden, 6 * n) if mode == "neural2" else (9, *hidden, n)
    rng = np.random.default_rng(seed)
    W = tuple(rng.standard_normal((a, b)) / np.sqrt(a) for a, b in zip(sizes, sizes[1:]))
    b = tuple(0.1 * rng.standard_normal(s) for s in sizes[1:])
    return Network(mode, ROBOT.name, ROBOT.fingerprint, TIP, tuple(ROBOT.variable_names), W, b,
                   rng.standard_normal(sizes[0]), 1.0 + rng.random(sizes[0]), rng.standard_normal(sizes[-1]),
                   1.0 + rng.random(sizes[-1]), 1.0, {"note": "random"})


def test_the_registry_lists_the_solvers_that_need_a_network():
    assert sorted(n for n, f in SOLVERS.items() if f.network is not None) == sorted(NETWORK_SOLVERS)


def test_the_compiled_forward_equals_the_numpy_forward():
    net = random_network()
    flat = net.flat()
    X = np.random.default_rng(1).standard_normal((20, net.sizes[0]))
    out, h = np.empty(net.sizes[-1]), np.empty(2 * mlp_width(flat))
    for x in X:
        mlp_forward(flat, x, out, h)
        np.testing.assert_allclose(out, net.forward(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(net.forward(X)[3], net.forward(X[3]))


def test_the_file_round_trips_without_pickle(tmp_path):
    net = random_network()
    path = net.save(tmp_path / "arm.neural2")  # no .npz appended: the path is the file
    assert path.is_file() and path.name == "arm.neural2"
    with np.load(path, allow_pickle=False) as z:  # every member is a plain array
        assert all(z[k].dtype != object for k in z.files)
    assert zipfile.is_zipfile(path)
    back = Network.load(path)
    fields = ("mode", "tip", "variables", "sizes", "training", "length")
    assert [getattr(back, f) for f in fields] == [getattr(net, f) for f in fields]
    np.testing.assert_array_equal(back.flat(), net.flat())


def test_a_solve_without_a_network_says_how_to_train_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MissingNetworkError, match=r"bioik train ur5 --mode neural2.*looked for .*ur5\.neural2\.npz") as e:
        bioik.solve(ROBOT, [bioik.PoseGoal(TIP, np.eye(4))], solver="neural2")
    assert isinstance(e.value, FileNotFoundError)


def test_a_network_for_another_mode_robot_or_goal_is_refused(tmp_path):
    with pytest.raises(NetworkMismatchError, match="needs a neural network"):
        bioik.Solver(ROBOT, "neural", network=random_network("neural2"))
    with pytest.raises(NetworkMismatchError, match="differs in its model, group or frozen joints"):
        bioik.Solver(bioik.load_robot("panda"), "neural2", network=random_network())
    with pytest.raises(NetworkMismatchError, match="places link 'tool0'"):
        bioik.Solver(ROBOT, "neural2", network=random_network()).solve([bioik.PositionGoal(TIP, [0.3, 0.0, 0.3])])
    with pytest.raises(ValueError, match="network= is for the neural solvers"):
        bioik.Solver(ROBOT, "lm", network=random_network())
    old = random_network(hidden=(16,))  # the former neural2 form: offsets out, not their matrix
    old = replace(old, weights=(old.weights[0], old.weights[1][:, :6]), biases=(old.biases[0], old.biases[1][:6]),
                  y_mean=old.y_mean[:6], y_scale=old.y_scale[:6])
    with pytest.raises(NetworkMismatchError, match="takes 18 inputs and gives 36 outputs; this one has 18 and 6"):
        bioik.Solver(ROBOT, "neural2", network=old)


def test_a_bad_network_file_is_refused_naming_it_and_the_form_expected(tmp_path):
    expected = r"expected a bioik network file \(format 2\) as `bioik train ROBOT --mode MODE` writes"
    with pytest.raises(MissingNetworkError, match=rf"nowhere\.npz: no such network file; {expected}"):
        bioik.Solver(ROBOT, "neural2", network=tmp_path / "nowhere.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(NetworkMismatchError, match=rf"text\.npz: unreadable as a network .*; {expected}"):
        Network.load(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", a=np.zeros(3))
    with pytest.raises(NetworkMismatchError, match=rf"other\.npz: unreadable as a network \(KeyError.*; {expected}"):
        Network.load(tmp_path / "other.npz")
    net = random_network()
    path = net.save(tmp_path / "old.npz")
    with np.load(path) as z:
        arrays = dict(z)
    header = json.loads(str(arrays["header"]))
    np.savez(path, **{**arrays, "header": np.array(json.dumps({**header, "format": 1}))})
    with pytest.raises(NetworkMismatchError, match=rf"old\.npz: format 1, mode 'neural2'; {expected}"):
        Network.load(path)
    del arrays["W1"]
    np.savez(path, **arrays)
    with pytest.raises(NetworkMismatchError, match=rf"old\.npz: no array\(s\) W1; {expected}"):
        Network.load(path)
    arrays["W1"] = np.zeros((3, 3))
    np.savez(path, **arrays)
    with pytest.raises(NetworkMismatchError, match=rf"old\.npz: its arrays do not match its layer sizes \[18, 16, 12, 36\]"):
        Network.load(path)


def pose_error(q: np.ndarray, T: np.ndarray) -> float:
    """Position error (m) plus rotation angle (rad) of the tip at q."""
    A = ROBOT.link_pose(q, TIP)
    c = np.clip((np.trace(A[:3, :3].T @ T[:3, :3]) - 1.0) / 2.0, -1.0, 1.0)
    return float(np.linalg.norm(A[:3, 3] - T[:3, 3]) + np.arccos(c))


@pytest.fixture(scope="module")
def tiny():
    """neural2 network for ur5 trained on a tiny budget (a few seconds)."""
    pytest.importorskip("sklearn")
    from bioik.solvers.neural.train import train

    return train(ROBOT, "neural2", samples=20_000, epochs=20, hidden=(64, 64), learning_rate=3e-3, seed=0)


def loop_ratio(network: Network, iterations: int = 20) -> float:
    """Median over 30 seeded targets of the goal error after `iterations` steps of the
    feedback loop (no restarts) from a seed near the target, over the seed's error."""
    rng = np.random.default_rng(11)
    Q = ROBOT.random_configuration(rng, 30)
    seeds = np.clip(Q + 0.1 * rng.standard_normal(Q.shape), ROBOT.lower, ROBOT.upper)
    solver = bioik.Solver(ROBOT, "neural2", network=network, min_step=1e-12, attempt_iterations=10**6)
    ratios = []
    for q, seed in zip(Q, seeds):
        T = ROBOT.link_pose(q, TIP)
        res = solver.solve([bioik.PoseGoal(TIP, T)], seed=seed, timeout=3600.0, max_iterations=iterations, random_seed=0)
        ratios.append(pose_error(res.q, T) / pose_error(seed, T))
    return float(np.median(ratios))


def test_a_tiny_training_reduces_the_goal_error_in_the_feedback_loop(tiny):
    """After a few seconds' training the loop cuts the median goal error to at most 0.3 of
    its start within 20 iterations; networks that learnt nothing — near-zero outputs (the
    weights shrunk) or the same layers with random weights — leave it where it was (the
    loop keeps the best configuration, so they cannot do worse than 1)."""
    rng = np.random.default_rng(3)
    random = replace(tiny, weights=tuple(rng.standard_normal(W.shape) / np.sqrt(W.shape[0]) for W in tiny.weights))
    assert loop_ratio(tiny) <= 0.3
    assert loop_ratio(replace(tiny, weights=tuple(0.01 * W for W in tiny.weights))) > 0.9
    assert loop_ratio(random) > 0.9


def test_the_tiny_network_solves_targets_from_random_seeds_on_its_own(tiny):
    """The whole search (restarts included, no other refinement): to 1e-5 m / 1e-5 rad
    within 200 iterations, 9 of these 30 FK targets when measured; the near-zero network
    none."""

    def solved(network: Network) -> int:
        rng = np.random.default_rng(5)
        Q, seeds = ROBOT.random_configuration(rng, 30), ROBOT.random_configuration(rng, 30)
        solver = bioik.Solver(ROBOT, "neural2", network=network)
        results = [solver.solve([bioik.PoseGoal(TIP, ROBOT.link_pose(q, TIP))], seed=s, timeout=3600.0, max_iterations=200,
                                random_seed=0) for q, s in zip(Q, seeds)]
        assert all(pose_error(r.q, ROBOT.link_pose(q, TIP)) < 2e-5 for r, q in zip(results, Q) if r.success)
        return sum(r.success for r in results)

    assert solved(tiny) >= 5
    assert solved(replace(tiny, weights=tuple(0.01 * W for W in tiny.weights))) == 0


def test_training_saves_a_network_the_solver_finds(tiny, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tiny.save(tmp_path / "ur5.neural2.npz")
    T = ROBOT.link_pose(ROBOT.center(), TIP)
    res = bioik.solve(ROBOT, [bioik.PoseGoal(TIP, T)], solver="neural2", seed=ROBOT.center(), max_iterations=5, random_seed=0)
    assert res.success and res.solver == "neural2"  # the seed already meets the goal


def test_neural_refines_the_networks_guess_to_a_solution():
    pytest.importorskip("sklearn")
    from bioik.solvers.neural.train import train

    net = train(ROBOT, "neural", samples=2000, epochs=5, hidden=(16,), seed=0)
    rng = np.random.default_rng(2)
    T = ROBOT.link_pose(ROBOT.random_configuration(rng), TIP)
    res = bioik.solve(ROBOT, [bioik.PoseGoal(TIP, T)], solver="neural", network=net, timeout=3600.0, max_iterations=2000,
                      random_seed=0)
    assert res.success and pose_error(res.q, T) < 1e-4
