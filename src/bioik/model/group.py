"""Joint groups (like SRDF groups): which variables a solver moves, and the tips."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from bioik.model.names import UnknownNameError, suggest
from bioik.model.robot_model import RobotModel

#: A group given by name, by joint names, by (base, tip) chains, or as a dict
#: {"chains": [[base, tip], ...], "joints": [...], "tips": [...]}.
GroupSpec = Union[str, Sequence[str], Sequence[Sequence[str]], Mapping[str, Any], None]


@dataclass(frozen=True)
class Group:
    """Active model variables (in solver order) and the group's tip links."""

    name: str
    variables: tuple[int, ...]
    tips: tuple[str, ...]


def resolve_group(model: RobotModel, spec: GroupSpec, named: Mapping[str, Any] | None = None, default: str | None = None) -> Group:
    """Turn a group spec into a `Group`; None means `default`, or every variable.

    The tips of the "all" group (and of a group that names none) are the leaf links some
    joint of the group moves: a frame hanging off the base by fixed joints only (ur5's
    `base`) never moves, so it is no end effector (a robot with no moving joint keeps
    its leaves).
    """
    named = named or {}
    if spec is None:
        if default is not None:
            return resolve_group(model, default, named)
        moving = [j for j, joint in enumerate(model.joints) if joint.motions]
        return Group("all", tuple(range(len(model.variables))), tuple(_moved_leaves(model, moving) or model.leaves))
    if isinstance(spec, str):
        if spec not in named:
            raise UnknownNameError(f"unknown group {spec!r} of robot {model.name!r}; {suggest(spec, named) if named else 'it has no named groups'}")
        g = resolve_group(model, dict(named[spec]), named)
        return Group(spec, g.variables, g.tips)
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"chains", "joints", "tips", "description"}
        if unknown:
            raise ValueError(f"group keys {sorted(unknown)} are not understood; expected 'chains', 'joints' and/or 'tips'")
        joints: dict[int, None] = {}  # ordered set: chains may share joints (a torso under two arms)
        tips: list[str] = []
        chains: set[tuple[str, str]] = set()
        for chain in _listed(spec, "chains", "[base, tip] pairs of link names"):
            if not isinstance(chain, (list, tuple)) or len(chain) != 2:
                raise ValueError(f"group chain {chain!r} must be a [base, tip] pair of link names")
            base, tip = chain
            joints.update(dict.fromkeys(model.chain(base, tip)))  # names checked here
            if (base, tip) in chains:
                raise ValueError(f"group of robot {model.name!r} lists chain [{base!r}, {tip!r}] twice; expected each chain once")
            chains.add((base, tip))
            tips.append(tip)
        listed: set[int] = set()
        for name in _listed(spec, "joints", "joint names"):
            j = model.joint_index(name)
            if j in listed:
                raise ValueError(f"group of robot {model.name!r} lists joint {name!r} twice; expected each joint once")
            listed.add(j)
            joints[j] = None
        variables = model.chain_variables(list(joints))
        if not variables:
            raise ValueError(f"group {dict(spec)!r} of robot {model.name!r} moves no joint variable")
        for t in _listed(spec, "tips", "link names"):
            model.link_index(t)
            if t not in tips:
                tips.append(t)
        if not tips:
            tips = _moved_leaves(model, list(joints))
        return Group("custom", tuple(sorted(variables)), tuple(tips))
    try:
        items = list(spec)
    except TypeError:  # a number, a 0-d array …: neither names nor chains
        items = []
    if items and all(isinstance(x, (list, tuple)) and len(x) == 2 for x in items):
        return resolve_group(model, {"chains": items}, named)
    if items and all(isinstance(x, str) for x in items):
        return resolve_group(model, {"joints": items}, named)
    raise ValueError(f"cannot read group {spec!r}: expected a group name, joint names, [base, tip] chains or a dict")


def _listed(spec: Mapping[str, Any], key: str, what: str) -> list:
    """spec[key] (absent: empty), which must be a list (or tuple) of `what`."""
    value = spec.get(key, ())
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"group key {key!r} must be a list of {what}; got {value!r}")
    return list(value)


def moved_links(model: RobotModel, joints: list[int]) -> list[str]:
    """Links below any of the given joints (the links they move), in model order.

    One walk for all joints, entering each link once: a walk per joint would cover a
    chain's links n times (n² steps: a 5,000-link chain took 15 s to load)."""
    below = set()
    stack = [model.joints[j].child for j in joints]
    while stack:
        link = stack.pop()
        if link not in below:
            below.add(link)
            stack.extend(model.joints[c].child for c in model.child_joints[link])
    return [name for i, name in enumerate(model.link_names) if i in below]


def _moved_leaves(model: RobotModel, joints: list[int]) -> list[str]:
    """Leaf links below any of the given joints."""
    return [name for name in moved_links(model, joints) if not model.child_joints[model.link_index(name)]]
