"""Goals: weighted residual costs that every solver consumes (goal types of [R 3.8], [E 8]).

Every module of this package is imported here, so that a goal file is all it takes to add
a goal: defining its class registers its kind (`bioik.goals.registry`), and every public
goal class of a module (aliases such as `AlignmentGoal` included) is exported from here
and from `bioik`, without a list to keep in step.
"""

import importlib as _importlib
import pkgutil as _pkgutil

from bioik.goals.base import Goal

__all__: list[str] = []
for _info in _pkgutil.iter_modules(__path__):
    _module = _importlib.import_module(f"{__name__}.{_info.name}")
    for _name, _value in vars(_module).items():
        if (not _name.startswith("_") and isinstance(_value, type) and issubclass(_value, Goal)
                and _value.__module__ == _module.__name__):
            globals()[_name] = _value
            __all__.append(_name)
__all__.sort()
del _info, _module, _name, _value
