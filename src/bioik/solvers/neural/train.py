"""Training the neural solvers' networks per robot (`bioik train ROBOT --mode neural2`).

Library: scikit-learn's `MLPRegressor` (the optional extra `bioik[neural]`). It trains a
small tanh perceptron with Adam on the CPU in minutes, is mature and widely packaged, and
its trained layers are plain arrays (`coefs_`, `intercepts_`) that `Network` stores and
bioik runs compiled, so neither inference nor loading needs it. A GPU framework (torch)
would be a far heavier dependency for networks of a few thousand weights; hand-written
numpy training would be ours to maintain and tune.

Data, from uniform random configurations q of the robot:

- neural2 [R 3.6] "is trained to return joint-space offsets that minimize goal offsets".
  For a goal difference Δx small enough for FK to be linear at q, the offsets that do so
  best with the least motion are Δq = J(q)⁺·Δx (J: the tip's base-frame Jacobian,
  analytic; position rows divided by `length`, the arm's RMS tip distance from its mean,
  so that a metre of position weighs like `length` radians of rotation). The map is linear
  in Δx, so the network is built linear in it: from the joint features of q it outputs the
  6 × dof matrix A(q) and the offset is A(q)·Δx (`bioik.solvers.neural.search`). Its
  target is the damped pseudo-inverse A = Jᵀ(JJᵀ + λ²I)⁻¹ (λ = `DAMPING`): equal to J⁺
  away from singularities, a function of q for redundant arms too (the minimum-norm
  offset), and bounded near singularities, where J⁺ is not. Training on the matrix is
  training on (q, Δx) → Δq for Δx over an orthonormal basis at once: the squared error
  of A is that of A·Δx averaged over unit Δx in all directions (times 6).
  [R 3.6] describes one network of (q, Δx) → Δq; that plain form, trained here on
  isotropic joint offsets, learnt nothing within minutes (held-out relative error 0.95,
  0 % solved), and on these targets with Δx uniform on the unit sphere it reached a
  relative error of 0.66 against the linear form's 0.51 (ur5, 50,000 examples, one
  minute), solving 2 of 40 targets against 32 of 40 in the same 300-step prototype loop:
  the linear form is our change.
- neural: input the tip pose at q, target q (full-turn joints wrapped into one turn, as
  their pose repeats every turn) scaled to [−1, 1].

Inputs are standardised and outputs scaled by their spread (neural2's outputs are not
shifted: a zero matrix stays zero).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from bioik.goals.pose import PoseGoal
from bioik.kinematics.robot import Robot
from bioik.solvers.neural.features import DIFFERENCE, PER_JOINT, POSE, joint_features, pose_inputs
from bioik.solvers.neural.network import Network

#: neural2's damping λ of the target's pseudo-inverse (in the units of the scaled goal difference).
DAMPING = 0.05


def tip_rows(robot: Robot, tip: str, Q: np.ndarray) -> np.ndarray:
    """(N, 7) tip frames (position, quaternion w x y z) of configurations Q."""
    return PoseGoal(tip, np.eye(4)).target_rows(robot, robot.fk(Q, [tip])[:, 0])[:, :7].copy()


def arm_length(robot: Robot, tip: str, Q: np.ndarray) -> float:
    """neural2's `Network.length`: the RMS distance (m) of the tip at Q from its mean."""
    P = robot.fk(Q, [tip])[:, 0, :3, 3]
    return float(np.sqrt(((P - P.mean(axis=0)) ** 2).sum(axis=1).mean())) or 1.0


def offset_matrices(robot: Robot, tip: str, Q: np.ndarray, length: float) -> np.ndarray:
    """(N, dof·6) neural2 targets: per configuration, the damped pseudo-inverse of the
    tip's Jacobian with position rows divided by `length`, row-major (see the module)."""
    scale = np.array([1.0 / length] * 3 + [1.0] * 3)[:, None]
    J = np.stack([scale * robot.jacobian(q, tip) for q in Q])
    M = J @ J.transpose(0, 2, 1) + DAMPING**2 * np.eye(DIFFERENCE)
    return np.linalg.solve(M, J).transpose(0, 2, 1).reshape(len(Q), -1)  # Jᵀ M⁻¹, as M is symmetric


def training_data(robot: Robot, tip: str, mode: str, Q: np.ndarray, length: float) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets) for configurations Q and `mode` (see the module)."""
    slo, shi = robot.sample_lower, robot.sample_upper
    if mode == "neural2":
        X = np.empty((len(Q), PER_JOINT * robot.dof))
        for x, q in zip(X, Q):
            joint_features(q, slo, shi, x)
        return X, offset_matrices(robot, tip, Q, length)
    X = np.empty((len(Q), POSE))
    pose_inputs(tip_rows(robot, tip, Q), X)
    Q = Q.copy()
    turns = robot.multiturn.astype(bool)
    Q[:, turns] = (Q[:, turns] + np.pi) % (2 * np.pi) - np.pi
    return X, (2.0 * Q - slo - shi) / (shi - slo)


def scaling(X: np.ndarray, Y: np.ndarray, mode: str) -> tuple[np.ndarray, ...]:
    """(x_mean, x_scale, y_mean, y_scale) for training data X, Y (see the module)."""
    x_mean, x_scale = X.mean(axis=0), X.std(axis=0) + 1e-9
    if mode == "neural2":
        return x_mean, x_scale, np.zeros(Y.shape[1]), np.sqrt((Y**2).mean(axis=0)) + 1e-12
    return x_mean, x_scale, Y.mean(axis=0), Y.std(axis=0) + 1e-9


def train(
    robot: Robot,
    mode: str = "neural2",
    *,
    tip: str | None = None,
    samples: int = 100_000,
    epochs: int = 1000,
    hidden: Sequence[int] = (128, 128),
    seconds: float = 300.0,
    learning_rate: float = 1e-3,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> Network:
    """Train a network for `robot` and `mode` ("neural" or "neural2").

    Args:
        robot: the robot (its active group).
        mode: the solver the network is for.
        tip: the link to place (None: the group's first tip).
        samples: training configurations (a tenth more are held out to report the error).
        epochs: passes over the data (Adam, mini-batches of 256; the weights of the epoch
            with the least held-out error are kept).
        hidden: the hidden layers' widths.
        seconds: stop after the epoch that passes this much training time.
        learning_rate: Adam's step size.
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
    if samples < 1 or epochs < 1:
        raise ValueError(f"samples and epochs must be at least 1; got {samples}, {epochs}")
    tip = robot.tips[0] if tip is None else tip
    robot.link_index(tip)  # an unknown link is refused by name
    say = progress or (lambda line: None)
    t0 = time.monotonic()
    rng = np.random.default_rng(seed)
    held = max(samples // 10, 1)
    Q = robot.random_configuration(rng, samples + held)
    length = arm_length(robot, tip, Q) if mode == "neural2" else 1.0
    X, Y = training_data(robot, tip, mode, Q, length)
    x_mean, x_scale, y_mean, y_scale = scaling(X[:samples], Y[:samples], mode)
    Xs, Ys = (X - x_mean) / x_scale, (Y - y_mean) / y_scale
    say(f"{samples:,} examples ({held:,} held out) in {time.monotonic() - t0:.1f} s")
    net = MLPRegressor(hidden_layer_sizes=tuple(hidden), activation="tanh", batch_size=256,
                       learning_rate_init=learning_rate, random_state=seed)
    t_fit = time.monotonic()
    epoch = 0
    best: tuple = (np.inf, 0, None)
    while epoch < epochs and time.monotonic() - t_fit < seconds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # partial_fit's per-epoch convergence notes
            net.partial_fit(Xs[:samples], Ys[:samples])
        epoch += 1
        P = net.predict(Xs[samples:]) * y_scale + y_mean
        error = float(np.median(np.linalg.norm(P - Y[samples:], axis=1) / np.linalg.norm(Y[samples:] - y_mean, axis=1)))
        if error < best[0]:
            best = (error, epoch, ([W.copy() for W in net.coefs_], [b.copy() for b in net.intercepts_]))
        say(f"epoch {epoch:3d}  loss {net.loss_:.5f}  held-out relative error (median) {error:.3f}  "
            f"{time.monotonic() - t_fit:6.1f} s")
    held_error, best_epoch, (weights, biases) = best
    record = {"samples": samples, "epochs": epoch, "kept_epoch": best_epoch, "hidden": list(hidden), "seed": seed,
              "seconds": round(time.monotonic() - t0, 1), "held_out_relative_error": round(held_error, 4)}
    return Network(mode, robot.name, robot.fingerprint, tip, tuple(robot.variable_names),
                   tuple(np.ascontiguousarray(W) for W in weights), tuple(np.ascontiguousarray(b) for b in biases),
                   x_mean, x_scale, y_mean, y_scale, length, record)
