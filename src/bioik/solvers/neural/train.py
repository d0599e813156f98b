"""Training the neural solvers' networks per robot (`bioik train ROBOT --mode neural2`).

Library: scikit-learn's `MLPRegressor` (the optional extra `bioik[neural]`). It trains a
small tanh perceptron with Adam on the CPU in minutes, is mature and widely packaged, and
its trained layers are plain arrays (`coefs_`, `intercepts_`) that `Network` stores and
bioik runs compiled, so neither inference nor loading needs it. A GPU framework (torch)
would be a far heavier dependency for networks of a few thousand weights; hand-written
numpy training would be ours to maintain and tune.

Data, from uniform random configurations q of the robot (FK gives the tip frames):

- neural2: a nearby configuration q' = q + Δq (Δq Gaussian, its size log-uniform between
  `SPREAD` fractions of each joint's range, clipped to the limits); input (q, goal
  difference of the tip at q' from the tip at q), target Δq. For a redundant arm many Δq
  give the same difference; trained on isotropic Δq, the network learns their mean, near
  the minimum-norm offset J⁺·Δx.
- neural: input the tip pose at q, target q (full-turn joints wrapped into one turn, as
  their pose repeats every turn) scaled to [−1, 1].

Inputs are standardised and outputs scaled by their spread; for neural2 the difference
inputs and the outputs are not shifted (their mean stays 0), so scaling a difference up by
s and the offset down by s (`bioik.solvers.neural.search`) acts on an unshifted map.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from bioik.goals.pose import PoseGoal
from bioik.kinematics.robot import Robot
from bioik.solvers.neural.features import DIFFERENCE, PER_JOINT, offset_inputs, pose_inputs
from bioik.solvers.neural.network import Network

#: neural2's offsets: the per-joint standard deviation as a fraction of the joint's range,
#: drawn log-uniformly between these.
SPREAD = (0.001, 0.01)


def tip_rows(robot: Robot, tip: str, Q: np.ndarray) -> np.ndarray:
    """(N, 7) tip frames (position, quaternion w x y z) of configurations Q."""
    return PoseGoal(tip, np.eye(4)).target_rows(robot, robot.fk(Q, [tip])[:, 0])[:, :7].copy()


def training_data(robot: Robot, tip: str, mode: str, samples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets) of `samples` examples for `mode` (see the module)."""
    slo, shi = robot.sample_lower, robot.sample_upper
    Q = robot.random_configuration(rng, samples)
    if mode == "neural2":
        spread = np.exp(rng.uniform(*np.log(SPREAD), size=(samples, 1))) * (shi - slo)
        Q2 = np.clip(Q + rng.standard_normal(Q.shape) * spread, robot.lower, robot.upper)
        X = np.empty((samples, PER_JOINT * robot.dof + DIFFERENCE))
        offset_inputs(Q, tip_rows(robot, tip, Q), tip_rows(robot, tip, Q2), slo, shi, X)
        return X, Q2 - Q
    X = np.empty((samples, 9))
    pose_inputs(tip_rows(robot, tip, Q), X)
    turns = robot.multiturn.astype(bool)
    Q[:, turns] = (Q[:, turns] + np.pi) % (2 * np.pi) - np.pi
    return X, (2.0 * Q - slo - shi) / (shi - slo)


def scaling(X: np.ndarray, Y: np.ndarray, mode: str, d: int) -> tuple[np.ndarray, ...]:
    """(x_mean, x_scale, y_mean, y_scale) for training data X, Y (see the module)."""
    x_mean, x_scale = X.mean(axis=0), X.std(axis=0) + 1e-9
    y_mean, y_scale = Y.mean(axis=0), Y.std(axis=0) + 1e-9
    if mode == "neural2":
        x_mean[d:] = 0.0
        x_scale[d:] = np.sqrt((X[:, d:] ** 2).mean(axis=0)) + 1e-12
        y_mean[:] = 0.0
        y_scale = np.sqrt((Y**2).mean(axis=0)) + 1e-12
    return x_mean, x_scale, y_mean, y_scale


def at_unit_difference(X: np.ndarray, Y: np.ndarray, x_scale: np.ndarray, d: int) -> None:
    """Scale each neural2 example in place so that its standardised goal difference has
    norm 1, the offset by the same factor: the search hands the network every difference
    at that size (`near_norm` 1), so the network learns only the direction map there; the
    scaling is exact where the offset is small enough for FK to be linear."""
    c = 1.0 / np.maximum(np.linalg.norm(X[:, d:] / x_scale[d:], axis=1), 1e-12)
    X[:, d:] *= c[:, None]
    Y *= c[:, None]


def train(
    robot: Robot,
    mode: str = "neural2",
    *,
    tip: str | None = None,
    samples: int = 200_000,
    epochs: int = 40,
    hidden: Sequence[int] = (64, 64),
    seconds: float = 300.0,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> Network:
    """Train a network for `robot` and `mode` ("neural" or "neural2").

    Args:
        robot: the robot (its active group).
        mode: the solver the network is for.
        tip: the link to place (None: the group's first tip).
        samples: training examples (a tenth more are held out to report the error).
        epochs: passes over the data (Adam, mini-batches of 256).
        hidden: the hidden layers' widths.
        seconds: stop after the epoch that passes this much training time.
        seed: seeds the data and the network's initial weights.
        progress: called with a line per epoch (None: silent).

    Returns:
        The trained `Network` (`Network.save` writes it).
    """
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError as e:
        raise ImportError("training a network needs scikit-learn: pip install bioik[neural]") from e
    if mode not in ("neural", "neural2"):
        raise ValueError(f"mode must be 'neural' or 'neural2'; got {mode!r}")
    tip = robot.tips[0] if tip is None else tip
    robot.link_index(tip)  # an unknown link is refused by name
    say = progress or (lambda line: None)
    t0 = time.monotonic()
    rng = np.random.default_rng(seed)
    held = max(samples // 10, 1)
    X, Y = training_data(robot, tip, mode, samples + held, rng)
    d = PER_JOINT * robot.dof  # neural2's first difference input
    x_mean, x_scale, y_mean, y_scale = scaling(X[:samples], Y[:samples], mode, d)
    if mode == "neural2":
        at_unit_difference(X, Y, x_scale, d)
        y_scale = np.sqrt((Y[:samples] ** 2).mean(axis=0)) + 1e-12
    Xs, Ys = (X - x_mean) / x_scale, (Y - y_mean) / y_scale
    say(f"{samples:,} examples ({held:,} held out) in {time.monotonic() - t0:.1f} s")
    net = MLPRegressor(hidden_layer_sizes=tuple(hidden), activation="tanh", batch_size=256, random_state=seed)
    t_fit = time.monotonic()
    epoch = 0
    held_error = np.inf
    while epoch < epochs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # partial_fit's per-epoch convergence notes
            net.partial_fit(Xs[:samples], Ys[:samples])
        epoch += 1
        P = net.predict(Xs[samples:]) * y_scale + y_mean
        held_error = float(np.median(np.linalg.norm(P - Y[samples:], axis=1) / np.linalg.norm(Y[samples:] - y_mean, axis=1)))
        say(f"epoch {epoch:3d}  loss {net.loss_:.5f}  held-out relative error (median) {held_error:.3f}  "
            f"{time.monotonic() - t_fit:6.1f} s")
        if time.monotonic() - t_fit > seconds:
            break
    record = {"samples": samples, "epochs": epoch, "hidden": list(hidden), "seed": seed,
              "seconds": round(time.monotonic() - t0, 1), "held_out_relative_error": round(held_error, 4)}
    return Network(mode, robot.name, robot.fingerprint, tip, tuple(robot.variable_names),
                   tuple(np.ascontiguousarray(W) for W in net.coefs_), tuple(np.ascontiguousarray(b) for b in net.intercepts_),
                   x_mean, x_scale, y_mean, y_scale, 1.0, record)
