"""A MoveIt kinematics.yaml entry in bioik's terms, for `KinematicsConfig.from_file`.

A kinematics.yaml maps group names to entries (`panda_arm: {kinematics_solver: …}`); a
file may also be one flat entry. An entry mixes three kinds of keys:

* MoveIt's: `kinematics_solver` (the plugin: BioIK's means its default mode
  `bio2_memetic`, KDL's `kdl`, TRAC-IK's `trac`), `kinematics_solver_timeout` (the
  timeout). `kinematics_solver_search_resolution` (KDL's discretisation of redundant
  joints) and `kinematics_solver_attempts` (MoveIt's re-seeded retries: every bioik
  search already restarts from random configurations until its timeout) have no meaning
  here: they are read with a `KinematicsConfigWarning`.
* the BioIK plugin's: `mode` (the solver; BioIK's names that bioik has), `random_seed`,
  `dpos` / `drot` (position / rotation tolerances), `dtwist` (BioIK's tolerance when
  those are not given: both tolerances), `position_only_ik`, `rotation_scale`,
  `center_joints_weight` / `minimal_displacement_weight` / `avoid_joint_limits_weight`
  (secondary goals added to each query), and the solver parameters `threads` (bio2's
  islands) and `population_size`, `elite_count`, `no_wipeout`. The plugin reads the last
  three for its original algorithm alone (its `bio1`, ik_evolution_1; its bio2 modes keep
  two individuals and 16 children per island whatever they say), so they go to bioik's
  bio1 as `population`, `elites` and `wipes: 0` and, as in the plugin, mean nothing to the
  other solvers. `counter` (BioIK's debug counter), `linear_fitness` (a fitness variant
  bioik's bio1 does not have), and a solver parameter the chosen solver lacks are read
  with a warning.
* bioik's own (`solver`, `timeout`, `parameters` …, see `KinematicsConfig`).

Any other key is an error that names it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from bioik.errors import KinematicsConfigError as KinematicsConfigError
from bioik.solvers.registry import SOLVERS


class KinematicsConfigWarning(UserWarning):
    """A kinematics.yaml key that has no meaning in bioik (read and ignored)."""


#: MoveIt kinematics plugins → the bioik solver that does what the plugin does.
PLUGINS = {
    "bio_ik/BioIKKinematicsPlugin": "bio2_memetic",
    "bio_ik_kinematics_plugin/BioIKKinematicsPlugin": "bio2_memetic",
    "kdl_kinematics_plugin/KDLKinematicsPlugin": "kdl",
    "trac_ik_kinematics_plugin/TRAC_IKKinematicsPlugin": "trac",
}

#: Keys read and ignored, with the reason a warning gives.
IGNORED = {
    "kinematics_solver_search_resolution": "KDL's discretisation of redundant joints; bioik searches all joints",
    "kinematics_solver_attempts": "bioik's searches restart from random configurations until the timeout, as MoveIt's attempts would",
    "counter": "BioIK's debug counter",
    "linear_fitness": "bioik's bio1 has only BioIK's default (quadratic) fitness",
}

#: BioIK's solver parameters → {bioik solver: (parameter, value map)}.
SOLVER_KEYS = {
    "threads": {"bio2*": "threads"},
    "population_size": {"bio1": "population"},
    "elite_count": {"bio1": "elites"},
    "no_wipeout": {"bio1": "wipes"},
}
#: The solver parameters BioIK's plugin reads for its original algorithm (ik_evolution_1) alone.
PLUGIN_BIO1_ONLY = ("population_size", "elite_count", "no_wipeout")

#: Keys that go to a KinematicsConfig field under another name.
RENAMED = {"kinematics_solver_timeout": "timeout", "dpos": "position_tolerance", "drot": "rotation_tolerance",
           "position_only_ik": "position_only"}

#: BioIK keys that are KinematicsConfig fields of the same name.
SAME = ("random_seed", "rotation_scale", "center_joints_weight", "minimal_displacement_weight", "avoid_joint_limits_weight")


def select_group(data: Mapping[str, Any], group: str | None, native: set[str], source: str) -> tuple[Mapping[str, Any], str]:
    """The entry of `group` in a per-group kinematics.yaml (the only group if None), or a
    flat entry itself; with the source named for errors (`file [group]`)."""
    flat = any(k in native or k in PLUGINS or k in IGNORED or k in SOLVER_KEYS or k in RENAMED or k in SAME
               or k in ("kinematics_solver", "mode", "dtwist") for k in data)
    groups = [k for k, v in data.items() if isinstance(v, Mapping)]
    if flat or not groups:
        return data, source
    others = sorted(k for k in data if k not in groups)
    if others:
        raise KinematicsConfigError(f"{source}: unknown key {others[0]!r}; expected group entries ({', '.join(groups)}) or one entry's keys")
    if group is None:
        if len(groups) != 1:
            raise KinematicsConfigError(f"{source}: several groups ({', '.join(groups)}); choose one with group=…")
        group = groups[0]
    if group not in data:
        raise KinematicsConfigError(f"{source}: no group {group!r}; groups: {', '.join(groups)}")
    return data[group], f"{source} [{group}]"


def translate(entry: Mapping[str, Any], native: set[str], source: str) -> dict[str, Any]:
    """The entry with MoveIt's and BioIK's keys replaced by KinematicsConfig fields (warnings
    for keys without meaning here; an error naming any unknown key)."""
    out: dict[str, Any] = {k: v for k, v in entry.items() if k in native}
    if "kinematics_solver" in entry:
        plugin = entry["kinematics_solver"]
        if not isinstance(plugin, str) or plugin not in PLUGINS:
            raise KinematicsConfigError(f"{source}: key 'kinematics_solver': {plugin!r} is not a plugin bioik stands in for; "
                                        f"known: {', '.join(PLUGINS)}")
        out.setdefault("solver", PLUGINS[plugin])
    if "mode" in entry:
        if not isinstance(entry["mode"], str) or entry["mode"] not in SOLVERS:
            raise KinematicsConfigError(f"{source}: key 'mode': {entry['mode']!r} is not a bioik solver; "
                                        f"known: {', '.join(sorted(SOLVERS))}")
        out["solver"] = entry["mode"]
    for key, field in RENAMED.items():
        if key in entry:
            out[field] = entry[key]
    for key in SAME:
        if key in entry:
            out[key] = entry[key]
    if "dtwist" in entry:
        out.setdefault("position_tolerance", entry["dtwist"])
        out.setdefault("rotation_tolerance", entry["dtwist"])
    for key, why in IGNORED.items():
        if key in entry:
            warnings.warn(f"{source}: key {key!r} has no meaning in bioik ({why}); ignored", KinematicsConfigWarning, stacklevel=3)
    _solver_keys(entry, out, source)
    known = native | set(PLUGINS) | set(IGNORED) | set(SOLVER_KEYS) | set(RENAMED) | set(SAME) | {"kinematics_solver", "mode", "dtwist"}
    unknown = sorted(k for k in entry if k not in known)
    if unknown:
        raise KinematicsConfigError(f"{source}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(known - set(PLUGINS)))}")
    return out


def _solver_keys(entry: Mapping[str, Any], out: dict[str, Any], source: str) -> None:
    """BioIK's solver parameters into out['parameters'], named as the chosen solver names them."""
    solver = out.get("solver", "lm")
    if solver not in SOLVERS:
        return  # KinematicsConfig names the bad solver
    family = "bio2*" if solver.startswith("bio2") else solver
    for key, names in SOLVER_KEYS.items():
        if key not in entry:
            continue
        value = entry[key]
        if key == "no_wipeout" and not isinstance(value, bool):
            raise KinematicsConfigError(f"{source}: key 'no_wipeout' must be true or false; got {value!r}")
        if family not in names:
            why = " (BioIK's plugin reads it for its bio1 only)" if key in PLUGIN_BIO1_ONLY else ""
            warnings.warn(f"{source}: key {key!r} has no meaning for solver {solver!r}{why}; ignored", KinematicsConfigWarning,
                          stacklevel=4)
            continue
        if key == "no_wipeout":
            if not value:
                continue
            value = 0.0
        out["parameters"] = {**out.get("parameters", {}), names[family]: value}
