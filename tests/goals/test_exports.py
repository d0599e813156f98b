"""The goal classes are listed by name in `bioik.goals` and `bioik` (so type checkers see
them), and those lists agree with what the goal modules define and the registry holds: a
goal file whose class is not exported fails here."""

import importlib
import pkgutil

import bioik
import bioik.goals
from bioik.goals import registry
from bioik.goals.base import Goal


def _defined() -> dict[str, type]:
    """Every public Goal subclass each module of bioik.goals defines, aliases included
    (what the package exported by walking its modules, before it listed them)."""
    out = {}
    for info in pkgutil.iter_modules(bioik.goals.__path__):
        module = importlib.import_module(f"bioik.goals.{info.name}")
        out.update({name: value for name, value in vars(module).items()
                    if not name.startswith("_") and isinstance(value, type) and issubclass(value, Goal)
                    and value.__module__ == module.__name__})
    return out


def test_bioik_goals_exports_every_goal_class_of_its_modules():
    defined = _defined()
    assert "AlignmentGoal" in defined and "PoseGoal" in defined
    assert sorted(bioik.goals.__all__) == sorted(defined), "bioik/goals/__init__.py must import and list every goal class"
    assert all(getattr(bioik.goals, name) is cls for name, cls in defined.items())


def test_bioik_exports_every_goal_class():
    defined = _defined()
    names = vars(bioik)  # not getattr: that would import the names `bioik` imports on first use
    exported = {name for name in bioik.__all__ if isinstance(names.get(name), type) and issubclass(names[name], Goal)}
    assert exported == set(defined), "bioik/__init__.py must import and list every goal class of bioik.goals"
    assert all(getattr(bioik, name) is cls for name, cls in defined.items())


def test_the_registry_holds_every_exported_goal_class():
    classes = {e.goal for e in registry.CLASSES.values() if e.inside}
    assert classes == set(_defined().values()) - {Goal}


def test_goal_options_after_the_target_are_keyword_only():
    """`PoseGoal("tool0", T, 2.0)` would silently set the weight: options must be named."""
    import numpy as np
    import pytest

    with pytest.raises(TypeError, match="positional argument"):
        bioik.PoseGoal("tool0", np.eye(4), 2.0)
    with pytest.raises(TypeError, match="positional argument"):
        bioik.DirectionGoal("tool0", (0, 0, 1), (1, 0, 0))
    assert bioik.PoseGoal("tool0", np.eye(4), weight=2.0).weight == 2.0
