"""The registry's list of solver modules matches the families the modules declare, and a
lookup imports only the module of the solver asked for."""

import importlib
import pkgutil
import subprocess
import sys

import bioik.solvers
from bioik.solvers.registry import MODULES, SOLVERS


def test_the_list_names_every_declared_solver_and_its_module():
    declared = set()
    for info in pkgutil.walk_packages(bioik.solvers.__path__, "bioik.solvers."):
        declared |= {f.name for f in getattr(importlib.import_module(info.name), "FAMILIES", ())}
    assert declared == set(MODULES) == set(SOLVERS)
    for name, module in MODULES.items():
        assert SOLVERS[name] in importlib.import_module(module).FAMILIES


def test_a_lookup_imports_only_that_solvers_module():
    code = ("import sys; from bioik.solvers.registry import SOLVERS; SOLVERS['lm']; "
            "print(' '.join(m for m in sys.modules if m.startswith('bioik.solvers.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "bioik.solvers.local.lm" in loaded
    assert not [m for m in loaded if m.startswith(("bioik.solvers.scipy.", "bioik.solvers.evolutionary.", "bioik.solvers.local.gd"))]


def test_every_solver_lists_its_parameters_with_default_range_and_meaning():
    import pytest

    import bioik

    for name in bioik.solvers.names():
        params = bioik.solvers.parameters(name)
        assert [p.name for p in params] == list(SOLVERS[name].defaults)
        for p in params:
            assert p.meaning and p.range and isinstance(p.default, float)
    lm = {p.name: p for p in bioik.solvers.parameters("lm")}
    assert lm["damping"].default == 0.1 and lm["damping"].range == "a finite number in [0, 1e+06]"
    with pytest.raises(bioik.UnknownNameError, match="unknown solver 'lmm'; closest: lm"):
        bioik.solvers.parameters("lmm")
