"""A trained network of the neural solvers [R 3.6]: plain arrays, saved and loaded without
pickle, run by numpy (`Network.forward`) and by compiled code (`mlp_forward`).

The network is a multilayer perceptron: standardised inputs, tanh hidden layers, a linear
output layer, de-standardised outputs (the form scikit-learn's MLPRegressor trains with
`activation="tanh"`). A `.npz` file holds the layers (`W0`, `b0`, `W1`, …), the input and
output scaling, and a JSON header (robot, its fingerprint, tip, variables, mode, layer
sizes, training record) stored as a unicode string array: `np.load(..., allow_pickle=False)`
reads it all, and neither inference nor loading needs the training library.

Inside a compiled search the network travels in the solver's settings vector after the
solver's parameters (`Network.flat`, read by `mlp_forward`): the kernels take only numeric
arrays, and each `Solver` (thus each thread's workspace) carries its own copy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from bioik.errors import MissingNetworkError as MissingNetworkError, NetworkMismatchError as NetworkMismatchError
from bioik.goals.pose import PoseGoal
from bioik.kinematics.frames import JIT
from bioik.kinematics.robot import Robot
from bioik.solvers.neural.features import DIFFERENCE, PER_JOINT, POSE

#: The modes and their codes in the flat form.
MODES = {"neural": 1, "neural2": 2}

#: Version of the file layout (in the header).
FORMAT = 2


@dataclass(frozen=True, eq=False)
class Network:
    """A trained network for one robot, tip and mode.

    Attributes:
        mode: "neural" (goal pose → joint values) or "neural2" (joint values → the
            6 × dof matrix that maps a goal difference to joint offsets, row-major;
            `bioik.solvers.neural.search`).
        robot: the robot's name; fingerprint: its `Robot.fingerprint` (model, group, frozen
            joints), checked when a solver takes the network.
        tip: the link whose pose the network places.
        variables: the robot's active variable names, in order.
        weights, biases: per layer, W (inputs × outputs) and b (outputs,).
        x_mean, x_scale: input standardisation, x ↦ (x − x_mean) / x_scale.
        y_mean, y_scale: output de-standardisation, y ↦ y·y_scale + y_mean.
        length: neural2: the length (m) a position difference is divided by to weigh like a
            rotation (rad) in the goal difference the network's offsets are for (1 for neural).
        training: how it was trained (samples, epochs, seconds, held-out errors).
    """

    mode: str
    robot: str
    fingerprint: str
    tip: str
    variables: tuple[str, ...]
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    x_mean: np.ndarray
    x_scale: np.ndarray
    y_mean: np.ndarray
    y_scale: np.ndarray
    length: float = 1.0
    training: dict[str, Any] = field(default_factory=dict)

    @property
    def sizes(self) -> list[int]:
        """Layer widths, inputs first."""
        return [self.weights[0].shape[0]] + [W.shape[1] for W in self.weights]

    def forward(self, X: np.ndarray) -> np.ndarray:
        """The network's outputs for inputs X (N, inputs) or (inputs,), in numpy."""
        a = (np.asarray(X, dtype=float) - self.x_mean) / self.x_scale
        for k, (W, b) in enumerate(zip(self.weights, self.biases)):
            a = a @ W + b
            if k < len(self.weights) - 1:
                a = np.tanh(a)
        return a * self.y_scale + self.y_mean

    def flat(self) -> np.ndarray:
        """The network as one float vector for `mlp_forward`: mode code, layer count L,
        the L + 1 widths, length, x_mean, x_scale, y_mean, y_scale, then per layer W
        (row-major) and b."""
        sizes = self.sizes
        parts = [[MODES[self.mode], len(self.weights)], sizes, [self.length],
                 self.x_mean, self.x_scale, self.y_mean, self.y_scale]
        for W, b in zip(self.weights, self.biases):
            parts += [W.ravel(), b]
        return np.concatenate([np.asarray(p, dtype=float).ravel() for p in parts])

    def save(self, path: str | Path) -> Path:
        """Write the network to `path` (.npz, no pickled objects); returns the path."""
        path = Path(path)
        header = {"format": FORMAT, "mode": self.mode, "robot": self.robot, "fingerprint": self.fingerprint, "tip": self.tip,
                  "variables": list(self.variables), "sizes": self.sizes, "activation": "tanh", "length": self.length,
                  "training": self.training}
        arrays = {f"W{k}": W for k, W in enumerate(self.weights)} | {f"b{k}": b for k, b in enumerate(self.biases)}
        with path.open("wb") as f:  # a file object: np.savez would append .npz to a name without it
            np.savez(f, header=np.array(json.dumps(header)), x_mean=self.x_mean, x_scale=self.x_scale,
                     y_mean=self.y_mean, y_scale=self.y_scale, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """Read a network written by `save` (without unpickling anything); a file of
        another form is refused naming the file and the form expected."""
        expected = (f"expected a bioik network file (format {FORMAT}) as `bioik train ROBOT --mode MODE` writes: an .npz "
                    "of a JSON header, x_mean, x_scale, y_mean, y_scale and layers W0, b0, W1, …")
        if not Path(path).is_file():
            raise MissingNetworkError(f"{path}: no such network file; {expected}")
        try:
            with np.load(path, allow_pickle=False) as z:
                a = {k: z[k] for k in z.files}
            h = json.loads(str(a["header"]))
        except (OSError, ValueError, KeyError) as e:
            raise NetworkMismatchError(f"{path}: unreadable as a network ({type(e).__name__}: {e}); {expected}") from e
        if h.get("format") != FORMAT or h.get("mode") not in MODES:
            raise NetworkMismatchError(f"{path}: format {h.get('format')!r}, mode {h.get('mode')!r}; {expected}")
        layers = len(h["sizes"]) - 1
        missing = sorted(({"x_mean", "x_scale", "y_mean", "y_scale"} | {f"{c}{k}" for c in "Wb" for k in range(layers)}) - set(a))
        if missing:
            raise NetworkMismatchError(f"{path}: no array(s) {', '.join(missing)}; {expected}")
        net = cls(h["mode"], h["robot"], h["fingerprint"], h["tip"], tuple(h["variables"]),
                  tuple(a[f"W{k}"] for k in range(layers)), tuple(a[f"b{k}"] for k in range(layers)),
                  a["x_mean"], a["x_scale"], a["y_mean"], a["y_scale"], float(h["length"]), h.get("training", {}))
        shapes = [W.shape for W in net.weights] + [b.shape for b in net.biases]
        sizes = h["sizes"]
        scaling = [net.x_mean.shape, net.x_scale.shape, net.y_mean.shape, net.y_scale.shape]
        if (shapes != [(i, o) for i, o in zip(sizes, sizes[1:])] + [(o,) for o in sizes[1:]]
                or scaling != [(sizes[0],)] * 2 + [(sizes[-1],)] * 2):
            raise NetworkMismatchError(f"{path}: its arrays do not match its layer sizes {sizes}; {expected}")
        return net

    def check(self, robot: Robot, mode: str) -> None:
        """Refuse this network for another mode, robot, group or frozen joints."""
        if self.mode != mode:
            raise NetworkMismatchError(f"solver {mode!r} needs a {mode} network; this one was trained for {self.mode!r} "
                                       f"(bioik train {self.robot} --mode {mode})")
        if self.fingerprint != robot.fingerprint:
            raise NetworkMismatchError(f"this network was trained for robot {self.robot!r} with variables "
                                       f"{', '.join(self.variables)}; robot {robot.name!r} (variables "
                                       f"{', '.join(robot.variable_names)}) differs in its model, "
                                       f"group or frozen joints: train one for it (bioik train ROBOT --mode {mode})")
        n = robot.dof
        ins, outs = (POSE, n) if mode == "neural" else (PER_JOINT * n, DIFFERENCE * n)
        if (self.sizes[0], self.sizes[-1]) != (ins, outs):
            raise NetworkMismatchError(f"a {mode} network for {n} joints takes {ins} inputs and gives {outs} outputs; this one "
                                       f"has {self.sizes[0]} and {self.sizes[-1]} (trained by an older bioik? retrain it: "
                                       f"bioik train {self.robot} --mode {mode})")

    def check_goals(self, goals: Sequence[Any]) -> None:
        """Refuse goals other than one primary pose goal on the network's tip."""
        g = goals[0]
        if len(goals) != 1 or g.is_secondary or type(g) is not PoseGoal or g.link != self.tip:
            got = ", ".join(f"{type(g).__name__}({getattr(g, 'link', '')})" for g in goals)
            raise NetworkMismatchError(f"the {self.mode} network of robot {self.robot!r} places link {self.tip!r}: it solves one "
                                       f"PoseGoal on that link; got {got}")


def default_paths(robot: Robot, mode: str) -> list[Path]:
    """Where a network is looked for when none is given, in order: beside the robot's URDF
    (`arm.urdf` → `arm.neural2.npz`) if it was loaded from a file, then `ROBOT.neural2.npz`
    in the current directory (the default of `bioik train` for a bundled robot)."""
    paths = []
    if robot.source is not None and Path(robot.source).is_file():
        paths.append(Path(robot.source).with_suffix(f".{mode}.npz"))
    paths.append(Path.cwd() / f"{robot.name}.{mode}.npz")
    return paths


def find_network(robot: Robot, mode: str, network: Network | str | Path | None = None) -> Network:
    """The network a neural solver runs: `network` (a `Network` or a file), else the first
    file of `default_paths`; checked against the robot and mode."""
    if network is None:
        paths = default_paths(robot, mode)
        found = next((p for p in paths if p.is_file()), None)
        if found is None:
            raise MissingNetworkError(
                f"solver {mode!r} needs a network trained for robot {robot.name!r}: "
                f"run `bioik train {robot.source or robot.name} "
                f"--mode {mode}` (a few minutes on CPU; needs `pip install bioik[neural]`), or pass network=PATH; "
                f"looked for {', '.join(str(p) for p in paths)}")
        network = found
    if not isinstance(network, Network):
        network = Network.load(network)
    network.check(robot, mode)
    return network


@njit(**JIT)
def mlp_width(net):
    """The widest layer of the flat network `net`."""
    L = int(net[1])
    w = 1
    for k in range(L + 1):
        w = max(w, int(net[2 + k]))
    return w


@njit(**JIT)
def length(net):
    """The flat network's `Network.length`."""
    return net[3 + int(net[1])]


@njit(**JIT)
def mlp_forward(net, x, out, h):
    """out ← the flat network `net` (`Network.flat`) applied to x; h: scratch of at least
    2·`mlp_width` values. Equal to `Network.forward` up to rounding."""
    L = int(net[1])
    s0, sL = int(net[2]), int(net[2 + L])
    W = mlp_width(net)
    a, b = h[:W], h[W : 2 * W]
    k = 4 + L  # x_mean
    for i in range(s0):
        a[i] = (x[i] - net[k + i]) / net[k + s0 + i]
    ym = k + 2 * s0
    k = ym + 2 * sL  # first layer
    for layer in range(L):
        m, p = int(net[2 + layer]), int(net[3 + layer])
        bias = k + m * p
        for j in range(p):
            b[j] = net[bias + j]
        for i in range(m):  # row by row: W is stored row-major, so the reads are contiguous
            ai, row = a[i], k + i * p
            for j in range(p):
                b[j] += ai * net[row + j]
        if layer < L - 1:
            for j in range(p):
                b[j] = np.tanh(b[j])
        k = bias + p
        a, b = b, a
    for j in range(sL):
        out[j] = a[j] * net[ym + sL + j] + net[ym + j]

