"""Every error bioik raises on purpose, under one base class: `BioikError`.

They live here, not beside the code that raises them, so that one module lists them all
(`bioik` exports each) and a caller can import any without importing the layer behind it;
the modules that raise them import them from here under their old names too.

This module is the lowest layer of the package: it imports nothing from bioik, so every
other module can import it.
"""


class BioikError(Exception):
    """Base of bioik's own errors (unknown names, bad URDF, unusable benchmark input, ...).

    Each subclass also keeps its builtin base (ValueError, KeyError), so code that catches
    those still works; `except bioik.BioikError` catches all of them at once.
    """


class UnknownNameError(BioikError, KeyError, ValueError):
    """An unknown link, joint, robot, group or solver name (lists the closest names)."""

    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0])


class URDFError(BioikError, ValueError):
    """A URDF that cannot be loaded; the message says what and where."""


class SRDFError(BioikError, ValueError):
    """An SRDF that cannot be read or names links/joints the robot does not have."""


class SceneError(BioikError, ValueError):
    """A scene input error; the message names the file, obstacle and key involved."""


class SelfCollisionError(BioikError, ValueError):
    """Two links no active joint moves are in each other where the rest is frozen: every
    configuration of the group collides; the message names the links and the remedies."""


class MeshNotFoundError(BioikError, FileNotFoundError):
    """A link's collision mesh reference did not resolve to a file when the URDF was loaded."""


class GoalError(BioikError, ValueError):
    """A goal built with a bad target, weight or option, or one the robot cannot take (a
    link without collision geometry, a variable outside the active group)."""


class GoalTypeError(GoalError, TypeError):
    """A goal option of the wrong type (a string for a weight, a number for a link name).
    Also a TypeError, as the errors it replaces were."""


class GoalRegistryError(BioikError, ValueError):
    """A goal class declares a kind the compiled layer cannot take (a code in use, no
    kernel, a bad size), or a goal kind the compiled kernels of this process do not hold."""


class ParameterError(BioikError, ValueError):
    """A solver or solve parameter outside its range (NaN, negative, too large …)."""


class ParameterTypeError(BioikError, TypeError, ValueError):
    """A solver or solve parameter of the wrong type (a string for a number, a fraction for
    a count). Also a ValueError, as the conversion errors it replaces were."""


class UnsupportedGoalsError(BioikError, ValueError):
    """The named solver cannot honour these goals; the message names the solvers that can."""


class MissingNetworkError(BioikError, FileNotFoundError):
    """A neural solver has no trained network for this robot; the message says how to train
    one and where networks are looked for."""


class NetworkMismatchError(BioikError, ValueError):
    """A network trained for another mode, robot, group or tip."""


class MoveItConfigError(BioikError, ValueError):
    """A MoveIt config folder that cannot be loaded (the message names the file and what is missing)."""


class KinematicsConfigError(BioikError, ValueError):
    """A kinematics config that cannot be used as written (the message names file and key)."""


class BenchError(BioikError, ValueError):
    """A benchmark input that cannot be used: a DB that is not a results DB or is damaged, an
    unwritable path, a robot whose content differs from the one stored under its name."""


class GoalSetRefused(BioikError, ValueError):
    """A solver cannot take the goals of a scene test's goal set (the CLI skips the pair)."""


class PeerSkipped(BioikError):  # noqa: N818 - a reason to skip, not an error
    """The peer cannot run here (package missing, robot or test not supported): skip it."""


class ReachError(BioikError, ValueError):
    """A study that cannot run: a file of another study, or an object with no surface to sample."""
