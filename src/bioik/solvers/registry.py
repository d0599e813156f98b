"""The solver families by name: each solver module declares its `FAMILIES` beside its code
(`bioik.solvers.core.family.Family`); this collects them."""

from __future__ import annotations

from bioik.solvers.core.family import Family
from bioik.solvers.evolutionary import bio1, bio2
from bioik.solvers.local import gd, jac, kdl, lm, nullspace
from bioik.solvers.scipy import bio2_lbfgs, optlib, relaxed, trac

SOLVERS: dict[str, Family] = {f.name: f for module in (lm, kdl, nullspace, jac, gd, bio1, bio2, bio2_lbfgs, trac, relaxed, optlib)
                              for f in module.FAMILIES}

DEFAULT_SOLVER = "lm"

#: The solver that runs goals calling Python when no solver is named: `lm` cannot call them.
PYTHON_GOALS_SOLVER = "optlib_lbfgsb"


def names() -> list[str]:
    """Names of the available solvers."""
    return sorted(SOLVERS)
