"""The solver families by name: each solver module declares its `FAMILIES` beside its code
(`bioik.solvers.core.family.Family`); `SOLVERS` finds them by name.

A solver's module is imported when one of its solvers is first looked up, so a process
loads only the solvers it runs: `bioik solve` with `lm` skips the scipy and evolutionary
searches (about a hundred kernel dispatchers and 60 ms of its start). The names are listed
here for that; tests/solvers/test_registry.py checks the list against the modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from bioik.model.names import UnknownNameError, suggest
from bioik.solvers.core.family import Family
from bioik.solvers.core.params import MEANINGS, SPECS

#: The module that declares each solver, in the order of the families' listing.
MODULES: dict[str, str] = {
    "lm": "bioik.solvers.local.lm",
    "kdl": "bioik.solvers.local.kdl",
    "nullspace": "bioik.solvers.local.nullspace",
    "jac": "bioik.solvers.local.jac",
    **dict.fromkeys(("gd", "gd_r", "gd_c", "gd_c_4"), "bioik.solvers.local.gd"),
    "bio1": "bioik.solvers.evolutionary.bio1",
    **dict.fromkeys(("bio2", "bio2_memetic", "bio2_memetic_l", "bio2_lm"), "bioik.solvers.evolutionary.bio2"),
    "bio2_memetic_lbfgs": "bioik.solvers.scipy.bio2_lbfgs",
    **dict.fromkeys(("trac", "trac_distance", "trac_manip1", "trac_manip2"), "bioik.solvers.scipy.trac"),
    "relaxed": "bioik.solvers.scipy.relaxed",
    **dict.fromkeys(("optlib_bfgs", "optlib_cg", "optlib_gd", "optlib_lbfgsb", "optlib_nelder_mead", "optlib_newton"),
                    "bioik.solvers.scipy.optlib"),
    **dict.fromkeys(("neural", "neural2"), "bioik.solvers.neural.search"),
}

#: The solvers that run a network trained per robot (`Family.network`): a robot has none
#: until `bioik train` made one, so "every solver" loops (warm-up, tests) leave them out.
NETWORK_SOLVERS = ("neural", "neural2")


class _Families(Mapping[str, Family]):
    """Solver name → `Family`, importing the solver's module on its first lookup."""

    def __getitem__(self, name: str) -> Family:
        families = importlib.import_module(MODULES[name]).FAMILIES
        return next(f for f in families if f.name == name)

    def __contains__(self, name: object) -> bool:
        return name in MODULES

    def __iter__(self) -> Iterator[str]:
        return iter(MODULES)

    def __len__(self) -> int:
        return len(MODULES)


SOLVERS: Mapping[str, Family] = _Families()

DEFAULT_SOLVER = "lm"

#: The solver that runs goals whose cost is a Python method (a `Goal` subclass of the PYTHON
#: kind) when no solver is named: the compiled solvers cannot call them. (LinkFunction and
#: JointFunction goals reach every solver through C callbacks: `bioik.goals.callbacks`.)
PYTHON_GOALS_SOLVER = "optlib_lbfgsb"


def names() -> list[str]:
    """Names of the available solvers.

    Returns:
        The names, sorted.
    """
    return sorted(MODULES)


class Parameter(NamedTuple):
    """A solver parameter: its name, the solver's default, the values it takes, what it does."""

    name: str
    default: float
    range: str
    meaning: str


def parameters(solver: str) -> list[Parameter]:
    """The tunable parameters of a solver, as `solve(..., solver=solver, name=value)` takes them.

    Args:
        solver: a solver name (see `names()`).

    Returns:
        Each parameter with its default, its range and its meaning, in the solver's order.
    """
    if not isinstance(solver, str) or solver not in MODULES:
        raise UnknownNameError(f"unknown solver {solver!r}; {suggest(str(solver), MODULES)}")
    defaults = SOLVERS[solver].defaults
    return [Parameter(name, float(value), SPECS[name].describe(), MEANINGS[name]) for name, value in defaults.items()]


def untrained_names() -> list[str]:
    """Names of the solvers that run without a network trained per robot (all but the
    neural ones): those that any robot can use as it is.

    Returns:
        The names, sorted.
    """
    return sorted(set(MODULES) - set(NETWORK_SOLVERS))
