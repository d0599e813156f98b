"""What each solver parameter may be, checked where parameters enter (`Family.settings`,
`bioik.solve`): a bad value is refused there with its name and the form expected, instead
of surfacing later as a conversion error, a numpy error, or a search that silently does
nothing (a population of 0, a NaN budget, a weight of 1e300).

Ranges are declared once per parameter name (families share names such as `damping` or
`attempt_iterations`); `tests/solvers/core/test_params.py` checks that every registered
family's parameters have one and that their defaults lie in it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

from bioik.errors import BioikError


class ParameterError(BioikError, ValueError):
    """A solver or solve parameter outside its range (NaN, negative, too large …)."""


class ParameterTypeError(BioikError, TypeError, ValueError):
    """A solver or solve parameter of the wrong type (a string for a number, a fraction for
    a count). Also a ValueError, as the conversion errors it replaces were."""


@dataclass(frozen=True)
class Spec:
    """An integer or real parameter in [low, high] (`low_open`: low itself excluded)."""

    integer: bool
    low: float
    high: float
    low_open: bool = False

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a finite number"
        if self.low == -math.inf:
            return kind
        low = f"{'>' if self.low_open else '>='} {self.low:g}"
        if self.high == math.inf:
            return f"{kind} {low}"
        return f"{kind} in {'(' if self.low_open else '['}{self.low:g}, {self.high:g}]"

    def check(self, name: str, value: Any, owner: str = "") -> float:
        """The value as a float, or a ParameterTypeError/ParameterError naming `name`."""
        where = f"{name}{owner}"
        if isinstance(value, bool) or not isinstance(value, Real):
            raise ParameterTypeError(f"{where} must be {self.describe()}; got {type(value).__name__} {value!r}")
        try:
            v = float(value)
        except OverflowError:
            v = math.inf
        if not math.isfinite(v):
            raise ParameterError(f"{where} must be {self.describe()}; got {value!r}")
        if self.integer and not isinstance(value, Integral) and not v.is_integer():
            raise ParameterTypeError(f"{where} must be {self.describe()}; got {value!r}")
        if not ((self.low < v if self.low_open else self.low <= v) and v <= self.high):
            raise ParameterError(f"{where} must be {self.describe()}; got {value!r}")
        return v


#: Largest count (iterations, population, steps) and largest weight or gain accepted.
MAX_COUNT = 1e9
MAX_WEIGHT = 1e6

COUNT = Spec(True, 1, MAX_COUNT)  # at least one
OPTIONAL_COUNT = Spec(True, 0, MAX_COUNT)  # zero switches the step off
WEIGHT = Spec(False, 0, MAX_WEIGHT, low_open=True)
FRACTION = Spec(False, 0, 1)
POSITIVE_FRACTION = Spec(False, 0, 1, low_open=True)

SPECS: dict[str, Spec] = {
    # local solvers (lm, jac, kdl, nullspace, gd, trac's kdl)
    "damping": Spec(False, 0, MAX_WEIGHT),
    "stall_ratio": Spec(False, 0, math.inf, low_open=True),  # > 1: never counts as a stall
    "attempt_iterations": COUNT,
    "tolerance_scale": POSITIVE_FRACTION,
    "min_step": POSITIVE_FRACTION,
    "centering_gain": Spec(False, 0, MAX_WEIGHT),
    "step_growth": Spec(False, 0, 100, low_open=True),
    "centering_steps": OPTIONAL_COUNT,
    "kdl_slice": COUNT,
    "sqp_slice": COUNT,
    "sqp_attempt_iterations": COUNT,
    # BioIK 1
    "population": Spec(True, 2, 10_000),
    "elites": Spec(True, 0, 10_000),
    # BioIK 2
    "population_size": Spec(True, 1, 10_000),
    "child_count": Spec(True, 0, 10_000),
    "elite_count": Spec(True, 0, 10_000),
    "threads": Spec(True, 1, 256),
    "species_count": Spec(True, 1, 10_000),
    "memetic_evolution_gens": OPTIONAL_COUNT,
    "memetic_opt_gens": OPTIONAL_COUNT,
    "wipeout_probability": FRACTION,
    "momentum_mix": FRACTION,
    "memetic_step": POSITIVE_FRACTION,
    "lm_damping": WEIGHT,
    "lm_stall_ratio": Spec(False, 0, math.inf, low_open=True),
    # scipy-based (optlib, relaxed)
    "max_iterations_per_run": COUNT,
    "limit_penalty": Spec(False, 0, MAX_WEIGHT),
    "tolerance": FRACTION,
    "ftol": FRACTION,
    "position_weight": WEIGHT,
    "rotation_weight": WEIGHT,
    "other_weight": WEIGHT,
    "secondary_weight": WEIGHT,
    "groove_c": WEIGHT,
    "groove_r": Spec(False, 0, MAX_WEIGHT),
    "groove_g": Spec(False, 0, 100, low_open=True),
}

#: Parameters bounded by another of the same family: (parameter, its bound, strictly below).
RELATIONS = (("elites", "population", True), ("elite_count", "population_size", False))


def check_parameters(values: Mapping[str, Any], solver: str) -> dict[str, float]:
    """Every value checked against its spec (and the relations between them), as floats."""
    owner = f" (a parameter of solver {solver!r})"
    out = {name: SPECS[name].check(name, v, owner) for name, v in values.items()}
    for name, bound, strict in RELATIONS:
        if name in out and bound in out and (out[name] >= out[bound] if strict else out[name] > out[bound]):
            relation = "below" if strict else "at most"
            raise ParameterError(f"{name}{owner} must be {relation} {bound} ({out[bound]:g}); got {values[name]!r}")
    return out


#: The per-solve arguments of `bioik.solve` / `Solver.solve`.
MAX_ITERATIONS = Spec(True, 1, math.inf)
RANDOM_SEED = Spec(True, -math.inf, math.inf)
TOLERANCE = Spec(False, 0, math.inf)
TIMEOUT = Spec(False, 0, math.inf, low_open=True)
