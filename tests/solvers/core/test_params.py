"""Every solver parameter and every per-solve argument is checked where it enters: a bad
type, NaN or a value out of range is refused with its name and the form expected."""

import math

import numpy as np
import pytest

import bioik
from bioik.solvers.core.params import SPECS, ParameterError, ParameterTypeError
from bioik.solvers.registry import SOLVERS

SETTINGS = [(solver, name) for solver, family in sorted(SOLVERS.items()) for name in family.defaults]


def test_every_parameter_has_a_range_and_its_default_lies_in_it():
    for solver, family in SOLVERS.items():
        settings = family.settings({})  # raises for a default outside its range
        assert settings.shape == (len(family.defaults) + len(family.fixed),), solver
    assert {name for _, name in SETTINGS} == set(SPECS)  # no range for a parameter nobody has


def out_of_range(name):
    spec = SPECS[name]
    return spec.low - 1 if spec.high == math.inf else 10 * spec.high + 1


@pytest.mark.parametrize(("solver", "name"), SETTINGS)
@pytest.mark.parametrize(("bad", "error"), [("abc", ParameterTypeError), (None, ParameterTypeError), (True, ParameterTypeError),
                                            (math.nan, ParameterError), (math.inf, ParameterError), ("range", ParameterError)])
def test_a_bad_setting_is_named(solver, name, bad, error):
    value = out_of_range(name) if bad == "range" else bad
    with pytest.raises(error, match=rf"^{name} \(a parameter of solver '{solver}'\) must be (an integer|a finite number)") as e:
        SOLVERS[solver].settings({name: value})
    assert isinstance(e.value, bioik.BioikError) and isinstance(e.value, ValueError)
    if error is ParameterTypeError:
        assert isinstance(e.value, TypeError)


@pytest.mark.parametrize(("solver", "name"), [(s, n) for s, n in SETTINGS if SPECS[n].integer])
def test_a_count_must_be_whole(solver, name):
    with pytest.raises(ParameterTypeError, match=rf"{name} .* must be an integer"):
        SOLVERS[solver].settings({name: SPECS[name].low + 1.5})


@pytest.mark.parametrize(
    ("solver", "params", "message"),
    [
        ("bio2", {"population_size": 0}, r"population_size .* must be an integer in \[1, 1000\]; got 0"),
        ("bio2", {"population_size": -3}, "population_size .* got -3"),
        ("bio2", {"population_size": 4, "elite_count": 5}, r"elite_count .* must be at most population_size \(4\); got 5"),
        ("bio1", {"population": 6, "elites": 6}, r"elites .* must be below population \(6\); got 6"),
        ("bio2", {"threads": 64, "species_count": 100, "population_size": 20},
         r"threads × species_count × population_size \(parameters of solver 'bio2'\) must be at most 100000 .* = 128000"),
        ("bio2", {"memetic_evolution_gens": 1e9}, r"memetic_evolution_gens .* in \[0, 10000\]; got 1000000000.0"),
        ("bio1", {"population": 10_000}, r"population .* in \[2, 1000\]; got 10000"),
        ("relaxed", {"position_weight": 1e300}, r"position_weight .* in \(0, 1e\+06\]; got 1e\+300"),
        ("relaxed", {"secondary_weight": 0.0}, "secondary_weight .* got 0.0"),
        ("lm", {"damping": "abc"}, r"damping .* must be a finite number in \[0, 1e\+06\]; got str 'abc'"),
        ("lm", {"damping": [0.1]}, "damping .* got list"),
    ],
)
def test_named_cases(solver, params, message):
    with pytest.raises((ParameterError, ParameterTypeError), match=message):
        SOLVERS[solver].settings(params)


def test_valid_values_are_kept():
    lm = SOLVERS["lm"].settings({"damping": np.float32(0.25), "attempt_iterations": np.int64(7), "stall_ratio": 1e300})
    assert lm[:3].tolist() == [0.25, 1e300, 7.0]
    assert SOLVERS["bio2"].settings({"population_size": 4.0, "elite_count": 4})[:3].tolist() == [4.0, 16.0, 4.0]


@pytest.fixture(scope="module")
def ur5():
    return bioik.load_robot("ur5")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(max_iterations=math.nan), ParameterError, "max_iterations must be an integer >= 1; got nan"),
        (dict(max_iterations=2.5), ParameterTypeError, "max_iterations must be an integer >= 1; got 2.5"),
        (dict(max_iterations="10"), ParameterTypeError, "max_iterations must be an integer >= 1; got str '10'"),
        (dict(max_iterations=-4), ParameterError, "max_iterations must be an integer >= 1; got -4"),
        (dict(random_seed="x"), ParameterTypeError, "random_seed must be an integer; got str 'x'"),
        (dict(random_seed=1.5), ParameterTypeError, "random_seed must be an integer; got 1.5"),
        (dict(timeout="fast"), ParameterTypeError, "timeout must be a finite number > 0; got str 'fast'"),
        (dict(timeout=math.nan), ParameterError, "timeout must be a finite number > 0; got nan"),
        (dict(position_tolerance="1e-3"), ParameterTypeError, "position_tolerance must be a finite number >= 0"),
        (dict(rotation_tolerance=-1e-3), ParameterError, "rotation_tolerance must be a finite number >= 0; got -0.001"),
        (dict(solver="bio2", population_size=0), ParameterError, "population_size .* got 0"),
        (dict(damping=[1.0]), ParameterTypeError, "damping .* got list"),
    ],
)
def test_solve_names_a_bad_argument(ur5, kwargs, error, message):
    with pytest.raises(error, match=message):
        bioik.solve(ur5, [bioik.PositionGoal("tool0", [0.3, 0.1, 0.3])], **kwargs)


def test_integral_values_of_any_numeric_type_are_accepted(ur5):
    goal = bioik.PositionGoal("tool0", [0.3, 0.1, 0.3])
    a = bioik.solve(ur5, [goal], seed=ur5.center(), max_iterations=np.int64(50), random_seed=np.int32(3), timeout=np.float32(60))
    b = bioik.solve(ur5, [goal], seed=ur5.center(), max_iterations=50.0, random_seed=3, timeout=60)
    assert np.array_equal(a.q, b.q)
