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

from bioik.errors import ParameterError as ParameterError, ParameterTypeError as ParameterTypeError


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


#: Largest count (iterations, steps) and largest weight or gain accepted.
MAX_COUNT = 1e9
#: Iteration budget standing for "no budget" (the timeout ends the search).
UNLIMITED = 2**62
MAX_WEIGHT = 1e6
#: Largest population (or child count) and number of generations per evolutionary step;
#: the searches read the clock inside their steps, so even these finish near the deadline.
MAX_POPULATION = 1000
MAX_GENERATIONS = 10_000
#: Largest number of individuals a BioIK 2 search keeps (islands × species × population):
#: their arrays (a few per individual, n doubles each) stay within a few MB.
MAX_INDIVIDUALS = 100_000

COUNT = Spec(True, 1, MAX_COUNT)  # at least one
OPTIONAL_COUNT = Spec(True, 0, MAX_COUNT)  # zero switches the step off
WEIGHT = Spec(False, 0, MAX_WEIGHT, low_open=True)
FRACTION = Spec(False, 0, 1)
POSITIVE_FRACTION = Spec(False, 0, 1, low_open=True)
SWITCH = Spec(True, 0, 1)  # 1 on, 0 off

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
    "concurrent": SWITCH,  # trac: the two searches on two threads (0: turns on one, reproducible)
    "partial_restarts": SWITCH,  # lm: restarts keep the settled goals' joints (`bioik.solvers.core.restarts`)
    "independent_goals": SWITCH,  # lm: goals sharing no joint solved as sub-problems (`bioik.solvers.core.components`)
    # neural2: the largest scaled goal difference one step is for
    "max_step": Spec(False, 0, 100, low_open=True),
    # BioIK 1 ([S] uses a population of 12; one generation of 1000 takes ≈ 0.5 ms)
    "population": Spec(True, 2, MAX_POPULATION),
    "elites": Spec(True, 0, MAX_POPULATION),
    "random_weights": SWITCH,  # its components, to measure each one's share [S 5.4]
    "adoption": SWITCH,
    "exploitation": SWITCH,
    "wipes": SWITCH,
    # BioIK 2 (tuned within [E Table 8.10]: population ≤ 20, children ≤ 100, islands ≤ 8,
    # species ≤ 20, generations ≤ 50; the ranges below leave 10–50× room beyond that)
    "population_size": Spec(True, 1, MAX_POPULATION),
    "child_count": Spec(True, 0, MAX_POPULATION),
    "elite_count": Spec(True, 0, MAX_POPULATION),
    "threads": Spec(True, 1, 64),
    "species_count": Spec(True, 1, 1000),
    "memetic_evolution_gens": Spec(True, 0, MAX_GENERATIONS),
    "memetic_opt_gens": Spec(True, 0, MAX_GENERATIONS),
    "wipeout_probability": FRACTION,
    "momentum_mix": FRACTION,
    "memetic_step": POSITIVE_FRACTION,
    "lm_damping": WEIGHT,
    "lm_stall_ratio": Spec(False, 0, math.inf, low_open=True),
    # its components, to measure each one's share [R 3.7.2–3.8] (no momentum, [R 3.7.8]: momentum_mix 0)
    "per_gene_mutation": SWITCH,  # 1: a mutation size per gene instead of per child [R 3.7.2]
    "wipeouts": SWITCH,  # 0: stuck species are never wiped out [R 3.7.5]
    "random_init": SWITCH,  # 1: every individual starts at random instead of at the seed [R 3.7.6]
    "rotation_distance": Spec(True, 0, 2),  # the fitness' rotation term [R 3.8]: 0 square quaternion distance, 1 norm·dot, 2 square angle
    # scipy-based (optlib, relaxed)
    "max_iterations_per_run": COUNT,
    "limit_penalty": Spec(False, 0, MAX_WEIGHT),
    "tolerance": POSITIVE_FRACTION,  # 0: BFGS never stops on the gradient and overshot the timeout by 1.4 ms
    "ftol": FRACTION,
    "position_weight": WEIGHT,
    "rotation_weight": WEIGHT,
    "other_weight": WEIGHT,
    "secondary_weight": WEIGHT,
    "groove_c": WEIGHT,
    "groove_r": Spec(False, 0, MAX_WEIGHT),
    "groove_g": Spec(False, 0, 100, low_open=True),
}

#: What each parameter does, in a line (`bioik.solvers.parameters` lists them with the
#: solver's defaults and the ranges above; the solver modules' docstrings say more).
MEANINGS: dict[str, str] = {
    "damping": "LM damping factor k: the step is damped by λ = k·E (larger: shorter, more gradient-like steps)",
    "stall_ratio": "an attempt restarts when the error fails to fall below this times its previous value twice in a row",
    "attempt_iterations": "steps of one attempt before it restarts from a random configuration",
    "tolerance_scale": "the search stops at this fraction of the goal tolerances, a margin for the exact final check",
    "min_step": "an attempt restarts when its step factor falls below this",
    "centering_gain": "gain k of the null-space centring task b = −k·(q − centre)",
    "step_growth": "factor the step grows by after a successful step",
    "centering_steps": "null-space steps after success that centre the joints (0: stop at the first answer)",
    "kdl_slice": "kdl iterations per turn of the race",
    "sqp_slice": "SLSQP iterations per turn of the race",
    "sqp_attempt_iterations": "SLSQP iterations of one attempt before it restarts from a random configuration",
    "concurrent": "1: kdl and SLSQP race on two threads, the first valid answer wins; 0: they take turns on one "
                  "thread (reproducible from the random seed and the iteration budget)",
    "partial_restarts": "1: a restart keeps the variables of the goals that have settled; 0: it draws every variable",
    "independent_goals": "1: pose goals that share no joint are solved as sub-problems; 0: as one problem",
    "max_step": "the largest scaled goal difference one network-guided step is for",
    "population": "individuals of the population",
    "elites": "individuals kept and exploited gene by gene each generation",
    "random_weights": "1: random position/rotation weights in each evaluation; 0: both ½",
    "adoption": "1: children are pulled towards the parents' mean and the fittest; 0: off",
    "exploitation": "1: the elites are exploited gene by gene; 0: off",
    "wipes": "1: a population that stops improving is wiped out and drawn anew; 0: never",
    "population_size": "individuals per species",
    "child_count": "children per generation (0: no evolution, memetics alone)",
    "elite_count": "individuals kept unchanged into the next generation",
    "threads": "islands, each searching on a thread of its own",
    "species_count": "species per island",
    "memetic_evolution_gens": "generations of evolution on the extrapolated model per step",
    "memetic_opt_gens": "iterations of the memetic local search per step (bio2_lm: of its LM attempt)",
    "wipeout_probability": "probability that a species other than the best is wiped out after a step",
    "momentum_mix": "weight of the particle-swarm momentum in a child's mutation (0: no momentum)",
    "memetic_step": "finite-difference step of the memetic gradient",
    "lm_damping": "damping factor k of bio2_lm's LM memetics (λ = k·E)",
    "lm_stall_ratio": "bio2_lm: a species counts as stuck unless its cost fell below this times its cost at the step's start",
    "per_gene_mutation": "1: a mutation size per gene instead of per child (an ablation switch)",
    "wipeouts": "0: stuck species are never wiped out (an ablation switch)",
    "random_init": "1: every individual starts at random instead of at the seed (an ablation switch)",
    "rotation_distance": "the fitness' rotation term: 0 square quaternion distance, 1 norm and dot product, 2 square angle",
    "max_iterations_per_run": "iteration cap of one optimiser run before the next start",
    "limit_penalty": "weight k of the penalty k‖q − clip(q)‖² that keeps unbounded optimisers within the limits",
    "tolerance": "the optimiser's own convergence tolerance",
    "ftol": "SLSQP's absolute tolerance on the objective's change between iterations",
    "position_weight": "weight of a pose goal's position objective (RelaxedIK's 50)",
    "rotation_weight": "weight of a pose goal's rotation objective (RelaxedIK's 40)",
    "other_weight": "weight of the other goals' objectives",
    "secondary_weight": "extra factor on the secondary goals' objectives",
    "groove_c": "the groove loss's width",
    "groove_r": "the groove loss's polynomial weight",
    "groove_g": "the groove loss's polynomial degree",
}

#: Parameters bounded by another of the same family: (parameter, its bound, strictly below).
RELATIONS = (("elites", "population", True), ("elite_count", "population_size", False))


#: Parameters whose product is bounded (memory of the search): (names, largest product).
PRODUCTS = ((("threads", "species_count", "population_size"), MAX_INDIVIDUALS),)


def check_parameters(values: Mapping[str, Any], solver: str) -> dict[str, float]:
    """Every value checked against its spec (and the relations between them), as floats."""
    owner = f" (a parameter of solver {solver!r})"
    out = {name: SPECS[name].check(name, v, owner) for name, v in values.items()}
    for name, bound, strict in RELATIONS:
        if name in out and bound in out and (out[name] >= out[bound] if strict else out[name] > out[bound]):
            relation = "below" if strict else "at most"
            raise ParameterError(f"{name}{owner} must be {relation} {bound} ({out[bound]:g}); got {values[name]!r}")
    for names, most in PRODUCTS:
        if all(k in out for k in names) and math.prod(out[k] for k in names) > most:
            given = " × ".join(f"{k} {out[k]:g}" for k in names)
            raise ParameterError(f"{' × '.join(names)} (parameters of solver {solver!r}) must be at most {most:g} (the individuals the search "
                                 f"keeps in memory); got {given} = {math.prod(out[k] for k in names):g}")
    return out


#: The per-solve arguments of `bioik.solve` / `Solver.solve`.
MAX_ITERATIONS = Spec(True, 1, math.inf)
RANDOM_SEED = Spec(True, -math.inf, math.inf)
TOLERANCE = Spec(False, 0, math.inf)
TIMEOUT = Spec(False, 0, math.inf, low_open=True)
