"""Fuzz bioik with hostile input: malformed URDFs, bad Robot-method arguments, bad goals,
bad solve arguments and bad command lines. No input may crash, hang or escape as an
exception bioik did not mean to raise.

A seeded generator (`numpy.random.default_rng([seed, family, index])`, so any case can be
replayed alone with --family and --index) makes the cases of each family:

  urdf   mutations of the bundled robots and of random generated trees: dropped, duplicated,
         renamed and moved elements and attributes; numbers replaced by nan, inf, 1e308,
         huge exponents, garbage or nothing; vectors of the wrong length; cycles, several
         roots, unknown joint types, mimic loops; long and unicode names; XML entities,
         DTDs and XInclude; truncation; UTF-16, UTF-32, latin-1 and BOMs; str, bytes,
         bytearray, a file path or an object that is none of them;
  robot  Robot methods (check, fk, link_pose, jacobian, extrapolate, full_configuration,
         with_group, with_frozen, random_configuration) and load_robot / snake arguments;
  goals  goals of every type with good-looking and bad fields (wrong shapes, NaN, inf,
         wrong types, unknown links, huge weights, negative tolerances, functions that
         return nonsense or raise), also fields reassigned after construction, then solved;
  solve  good goals with bad solve arguments: seeds, timeouts, solver names, solver
         parameters, iteration budgets, tolerances, acceptance modes, scenes, callbacks
         returning non-bools or raising;
  cli    argument lists for `bioik robots|info|fk|solve|warmup|bench run|report|plot|tune`
         with bad values, missing files, directories, non-URDF and non-DB files (in
         process, and every 20th one as a real `python3 -m bioik.cli` process);
  big    a fixed set of large inputs: 50 MB URDFs (padding comment, whitespace, a name,
         a number, many links, many visuals, UTF-16), 5,000-link chains (snake, random
         tree, a 5,000-long mimic chain, a cycle at the end), deep nesting.

Each case runs in a forked worker under a time limit (5 s; 60 s for the big ones) and is:
  ok       accepted, and what came back is sound (finite poses and Jacobians, answers
           within limits, a success whose errors are finite; CLI exit status 0, or 1 for
           a solve that failed);
  refused  a bioik error, or a ValueError/TypeError raised by a `raise` in bioik's own
           code, with a message (a callback's own exception passing through unchanged
           counts too); for the CLI, exit status 2 whose last line is the one error line;
  crash    anything else: another exception (OverflowError, IndexError, numpy's errors
           from inside numpy, ...), a traceback or a multi-line error from the CLI, a
           dead worker (segfault), or an unsound answer reported as fine;
  hang     over the time limit.

Valid values in the generators are kept small (timeouts, iteration budgets, targets,
trials), so an accepted case ends quickly: a hang is the package's, not a long job's.

Usage: python3 benchmarks/fuzz.py --cases 2000 --seed 0 [--families urdf robot goals solve cli big]
                                  [--solvers lm bio1 ...] [--family F --index I] [--show 20]
Prints a table of counts per family and the failing cases; exit status 1 if any crash or hang.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import math
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from functools import partial
from pathlib import Path

import numpy as np
from lxml import etree

import bioik
import bioik.cli
from bioik.errors import BioikError
from bioik.kinematics.frames import quat_from_matrix
from bioik.robots import URDF_DIR, names as bundled_names
from bioik.robots.snake import snake_urdf
from bioik.solvers import registry
from bioik.solvers.core.params import SPECS

FAMILIES = ("urdf", "robot", "goals", "solve", "cli", "big")
KINDS = ("ok", "refused", "crash", "hang")
#: Seconds per case, and per large case.
LIMIT = 5.0
BIG_LIMIT = 60.0
#: Every how many CLI cases one runs as a real process (importing bioik: a longer limit).
SUBPROCESS_EVERY = 20
SUBPROCESS_LIMIT = 60.0
#: Robots the robot, goals, solve and cli families use (loaded once, before the workers fork).
POOL = ("ur5", "panda", "dual_ur5", "snake7", "tree")
BIOIK_SRC = str(Path(bioik.__file__).parent)
MB = 1 << 20


class BadAnswer(Exception):
    """Accepted input gave an unsound answer (NaN, out of limits, a traceback): a crash."""


class Refused(Exception):
    """The CLI refused the input cleanly (exit status 2, one error line)."""


class Hang(Exception):
    """A subprocess the case started ran over its limit."""


class UserError(Exception):
    """Raised by the fuzzer's own callbacks and goal functions: bioik must let it through."""


@dataclass
class Case:
    family: str
    index: int
    what: str  # one line: what is thrown at bioik
    run: Callable[[], None]  # returns if accepted and sound; raises otherwise
    limit: float = LIMIT


# ------------------------------------------------------------------ hostile values

#: Number texts for URDF attributes.
NUMBER_TEXTS = ("nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e308", "-1e308", "1.7976931348623157e308", "1e309",
                "-1e999", "-0", "0", "1e-320", "5e-324", "1e99999999", "9" * 400, "0x10", "1_0", "\u0661\u0662", "", " ",
                "abc", "1e", ".", "+", "--1", "1,5", "1 2", "None", "true", "1e6", "-1e6", "1000001", "3.4028235e38")
#: Python values for any argument or goal field.
HOSTILE = (math.nan, math.inf, -math.inf, 1e308, -1e308, -0.0, 0, -1, 10**400, -(10**400), True, None, "abc", "1.0", b"x",
           [], [1.0, 2.0], [[1.0]], np.zeros((2, 2)), np.full(3, np.nan), {"a": 1}, object(), complex(1, 2), np.float32(np.inf),
           np.int64(-5), np.array(1.0), np.array([]), (1, 2, 3), [10**400, 0, 0], np.array(["a", "b", "c"]),
           np.array([1, 2, 3], dtype=object), [1e308, 1e308, 1e308], [math.nan, 0, 0], "x" * 100_000, 1e-320, 2**63,
           -(2**63) - 1, np.nan, [0.0, 0.0, 0.0], np.full((4, 4), math.inf), {"x", "y"}, range(3), ..., print)
NAMES = ("", " ", "a/x", "x" * 100_000, "\u0644\u064a\u0646\u0643", "\U0001f916", "e\u0301", "\u202eevil", "a b", "<&>\"'",
         "-", "0", "base\u200b", "\u00e9", "ünknown")


def pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def hostile(rng: np.random.Generator):
    return pick(rng, HOSTILE + NAMES)


def short(x, n: int = 60) -> str:
    """repr(x) cut to n characters, for case descriptions."""
    try:
        text = repr(x)
    except Exception:  # noqa: BLE001 — a value whose repr fails is described by its type
        text = f"<{type(x).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


# ------------------------------------------------------------------ checks of accepted answers


def finite(x, what: str) -> None:
    if not np.all(np.isfinite(np.asarray(x, dtype=float))):
        raise BadAnswer(f"{what} is not finite")


def sound_robot(robot: bioik.Robot, rng: np.random.Generator, budget: int = 5) -> None:
    """An accepted robot works: finite FK and Jacobians, and a short solve stays within limits."""
    q = robot.center()
    finite(robot.fk(q), "fk at the centre")
    finite(robot.fk(robot.random_configuration(rng, 2)), "fk at random configurations")
    for tip in robot.tips[:2]:
        finite(robot.jacobian(q, tip), f"the Jacobian of {tip!r}")
    if robot.dof and robot.tips:
        tip = robot.tips[0]
        goal = bioik.PositionGoal(tip, robot.link_pose(robot.random_configuration(rng), tip)[:3, 3])
        sound_result(robot, bioik.solve(robot, [goal], max_iterations=budget, random_seed=0, timeout=1.0), [goal])


def sound_result(robot: bioik.Robot, res: bioik.Result, goals) -> None:
    """A solve's answer is sound: a Result, q finite and within limits, and a success whose
    primary goals have finite errors and cost (secondary goals may cost anything, inf too)."""
    if not isinstance(res, bioik.Result):
        raise BadAnswer(f"solve returned a {type(res).__name__}")
    if np.shape(res.q) != (robot.dof,):
        raise BadAnswer(f"q has shape {np.shape(res.q)}, expected ({robot.dof},)")
    finite(res.q, "q")
    if not robot.within_limits(res.q, 1e-9):
        raise BadAnswer("q is outside the joint limits")
    if not isinstance(res.success, bool):
        raise BadAnswer(f"success is a {type(res.success).__name__}")
    if res.success:
        finite(res.goal_errors[[k for k, g in enumerate(goals) if not g.is_secondary]], "the primary goals' errors of a success")
        if not math.isfinite(res.primary_cost):
            raise BadAnswer(f"a success with primary cost {res.primary_cost}")


# ------------------------------------------------------------------ urdf family

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "planar", "floating")
NUMERIC = ("xyz", "rpy", "lower", "upper", "velocity", "effort", "value", "size", "radius", "length", "scale", "multiplier",
           "offset", "ixx", "ixy", "ixz", "iyy", "iyz", "izz", "rgba")
TAGS = ("link", "joint", "robot", "origin", "axis", "limit", "mimic", "parent", "child", "geometry", "collision", "visual",
        "inertial", "mass", "box", "sphere", "cylinder", "mesh", "foo", "Link", "JOINT")


def _xyz(rng: np.random.Generator, scale: float = 0.3) -> str:
    return " ".join(f"{v:.4g}" for v in rng.uniform(-scale, scale, 3))


def _geometry(rng: np.random.Generator, meshes: bool) -> str:
    kind = int(rng.integers(4 if meshes else 3))
    shape = ('<box size="0.1 0.05 0.2"/>', '<sphere radius="0.04"/>', '<cylinder radius="0.03" length="0.2"/>',
             '<mesh filename="package://nowhere/mesh.stl" scale="1 1 1"/>')[kind]
    return f'<origin xyz="{_xyz(rng, 0.05)}" rpy="{_xyz(rng, 1)}"/><geometry>{shape}</geometry>'


def tree_urdf(rng: np.random.Generator, n: int, branching: float = 0.3, meshes: bool = True) -> str:
    """A random valid URDF of n joints: every joint type, mimics, geometry (`meshes`: some of
    it meshes that are nowhere), inertials."""
    links, joints, movable = ['<link name="l0"/>'], [], []
    for i in range(1, n + 1):
        parts = []
        if rng.random() < 0.5:
            parts.append(f'<inertial><origin xyz="{_xyz(rng, 0.1)}"/><mass value="{rng.uniform(0, 3):.3g}"/>'
                         '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>')
        if rng.random() < 0.5:
            parts.append(f"<collision>{_geometry(rng, meshes)}</collision>")
        if rng.random() < 0.3:
            parts.append(f"<visual>{_geometry(rng, meshes)}</visual>")
        links.append(f'<link name="l{i}">{"".join(parts)}</link>')
        parent = int(rng.integers(i)) if rng.random() < branching else i - 1
        jtype = pick(rng, JOINT_TYPES[:4] * 3 + JOINT_TYPES[4:])
        body = f'<parent link="l{parent}"/><child link="l{i}"/><origin xyz="{_xyz(rng)}" rpy="{_xyz(rng, 3)}"/>'
        if jtype != "fixed":
            body += f'<axis xyz="{_xyz(rng, 1)}"/>'
        if jtype in ("revolute", "prismatic"):
            lo = rng.uniform(-3, 0)
            body += f'<limit lower="{lo:.4g}" upper="{lo + rng.uniform(0, 4):.4g}" velocity="1" effort="10"/>'
        if jtype in ("revolute", "prismatic", "continuous"):
            if movable and rng.random() < 0.15:
                body += f'<mimic joint="{pick(rng, movable)}" multiplier="{rng.uniform(-2, 2):.3g}" offset="0.1"/>'
            movable.append(f"j{i}")
        joints.append(f'<joint name="j{i}" type="{jtype}">{body}</joint>')
    return f'<?xml version="1.0"?>\n<robot name="tree{n}">\n' + "\n".join(links + joints) + "\n</robot>\n"


def _elements(root: etree._Element, tag: str | None = None) -> list:
    return [el for el in root.iter(tag) if isinstance(el.tag, str)]


def _names(root: etree._Element) -> list[str]:
    return [el.get("name") for el in _elements(root) if el.tag in ("link", "joint") and el.get("name")] or ["x"]


def _name_value(rng: np.random.Generator, root: etree._Element) -> str:
    return pick(rng, _names(root)) if rng.random() < 0.5 else pick(rng, NAMES)


# Tree mutations: each changes the lxml tree in place and says in a few words what it did.


def m_drop_element(root, rng):
    el = pick(rng, _elements(root)[1:] or [root])
    if el is not root:
        el.getparent().remove(el)
    return f"dropped <{el.tag}>"


def m_duplicate_element(root, rng):
    import copy

    el = pick(rng, _elements(root)[1:] or [root])
    if el is not root:
        el.addnext(copy.deepcopy(el))
    return f"duplicated <{el.tag}>"


def m_rename_tag(root, rng):
    el = pick(rng, _elements(root))
    old, el.tag = el.tag, pick(rng, TAGS)
    return f"<{old}> renamed <{el.tag}>"


def m_move_element(root, rng):
    els = _elements(root)[1:]
    if len(els) < 2:
        return "nothing to move"
    el, to = pick(rng, els), pick(rng, els)
    if el is to or el in to.iterancestors():
        return "no move"
    to.append(el)
    return f"moved <{el.tag}> into <{to.tag}>"


def _attribute(root, rng, names=None):
    """A random (element, attribute) of the tree (one of `names` if given), or None."""
    els = [el for el in _elements(root) if any(names is None or a in names for a in el.attrib)]
    if not els:
        return None
    el = pick(rng, els)
    return el, pick(rng, [a for a in el.attrib if names is None or a in names])


def m_drop_attribute(root, rng):
    found = _attribute(root, rng)
    if found is None:
        return "no attribute"
    el, attr = found
    del el.attrib[attr]
    return f"dropped {el.tag}@{attr}"


def m_rename_attribute(root, rng):
    found = _attribute(root, rng)
    if found is None:
        return "no attribute"
    el, attr = found
    new = pick(rng, ("name", "link", "type", "xyz", "joint", "lower", "Name", "x"))
    value = el.attrib.pop(attr)
    el.set(new, value)
    return f"{el.tag}@{attr} renamed {new}"


def m_name(root, rng):
    els = [el for el in _elements(root) if el.get("name") is not None or el.get("link") is not None or el.tag == "mimic"]
    el = pick(rng, els or [root])
    attr = "link" if el.get("link") is not None else "joint" if el.tag == "mimic" else "name"
    value = _name_value(rng, root)
    el.set(attr, value)
    return f"{el.tag}@{attr} = {short(value, 30)}"


def m_number(root, rng):
    """A number attribute gets a hostile number text for one of its numbers or for all of
    them, or the wrong count of numbers."""
    found = _attribute(root, rng, NUMERIC)
    if found is None:
        return "no number"
    el, attr = found
    words = el.get(attr).split()
    r = rng.random()
    if r < 0.25:
        words = (words + ["0.5"] * 8)[: int(rng.integers(0, 8))]
    elif words and r < 0.7:
        words[int(rng.integers(len(words)))] = pick(rng, NUMBER_TEXTS)
    else:
        words = [pick(rng, NUMBER_TEXTS)]
    el.set(attr, " ".join(words))
    return f"{el.tag}@{attr} = {short(el.get(attr), 40)}"


def m_joint_type(root, rng):
    joints = _elements(root, "joint")
    if not joints:
        return "no joint"
    el = pick(rng, joints)
    el.set("type", pick(rng, JOINT_TYPES + ("REVOLUTE", "spherical", "", "ball", "revolute ", "gearbox")))
    return f"joint {short(el.get('name'), 20)} type {el.get('type')!r}"


def m_reparent(root, rng):
    joints = _elements(root, "joint")
    links = [el.get("name") for el in _elements(root, "link") if el.get("name")]
    if not joints or not links:
        return "no joint"
    el = pick(rng, joints)
    end = el.find(pick(rng, ("parent", "child")))
    if end is None:
        return "no end"
    end.set("link", pick(rng, links))
    return f"joint {short(el.get('name'), 20)} {end.tag} = {short(end.get('link'), 20)}"


def m_extra_root(root, rng):
    etree.SubElement(root, "link", name=pick(rng, ("orphan", "l0", "")))
    return "added an unconnected link"


def m_mimic(root, rng):
    joints = _elements(root, "joint")
    if not joints:
        return "no joint"
    el, target = pick(rng, joints), pick(rng, joints)
    for old in el.findall("mimic"):
        el.remove(old)
    attrs = {"joint": target.get("name") or "", "multiplier": pick(rng, ("1", "-1", "1e300", "0", "nan", "2")),
             "offset": pick(rng, ("0", "1e300", "-1e300", "0.5"))}
    etree.SubElement(el, "mimic", **attrs)
    return f"joint {short(el.get('name'), 20)} mimics {short(attrs['joint'], 20)} x{attrs['multiplier']} +{attrs['offset']}"


def m_text(root, rng):
    el = pick(rng, _elements(root))
    el.text = pick(rng, ("1 2 3", "\u00e9t\u00e9", "   ", "x" * 1000))
    return f"text in <{el.tag}>"


def m_attribute(root, rng):
    el = pick(rng, _elements(root))
    el.set(pick(rng, ("xyz", "foo", "type", "name", "value")), pick(rng, NUMBER_TEXTS + NAMES[:5]))
    return f"extra attribute on <{el.tag}>"


def m_clear(root, rng):
    el = pick(rng, _elements(root))
    for child in list(el):
        el.remove(child)
    return f"emptied <{el.tag}>"


def m_mesh(root, rng):
    shapes = [el for el in _elements(root) if el.tag in ("box", "sphere", "cylinder", "mesh")]
    if not shapes:
        return "no geometry"
    el = pick(rng, shapes)
    el.tag = "mesh"
    el.attrib.clear()
    el.set("filename", pick(rng, ("../../../../etc/passwd", "/etc/passwd", "/dev/zero", "file:///etc/hosts", "http://x/y.stl",
                                  "package://", "", ".", "mesh.stl", "x" * 5000, "\u00e9.dae")))
    return f"mesh {short(el.get('filename'), 30)}"


TREE_MUTATIONS = (m_drop_element, m_duplicate_element, m_rename_tag, m_move_element, m_drop_attribute, m_rename_attribute,
                  m_name, m_number, m_number, m_number, m_number, m_joint_type, m_reparent, m_extra_root, m_mimic, m_text,
                  m_attribute, m_clear, m_mesh)

ENTITY_TRICKS = (
    '<!DOCTYPE robot [<!ENTITY x "0.1">]>',
    '<!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>',
    '<!DOCTYPE robot [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
    '<!DOCTYPE robot [<!ENTITY % p SYSTEM "http://127.0.0.1:1/x.dtd"> %p;]>',
    '<!DOCTYPE robot SYSTEM "http://127.0.0.1:1/robot.dtd">',
    "<!DOCTYPE robot>",
)


# Text mutations: each returns the changed URDF text and a few words saying what it did.


def t_truncate(text: str, rng) -> tuple[str, str]:
    at = int(rng.integers(len(text) + 1))
    return text[:at], f"truncated at {at}/{len(text)}"


def t_entity(text: str, rng) -> tuple[str, str]:
    trick = pick(rng, ENTITY_TRICKS)
    body = text.split("?>", 1)[-1] if text.startswith("<?xml") else text
    if "ENTITY" in trick and rng.random() < 0.7:
        ref = "&c;" if "&b;" in trick else "&x;" if '"0.1"' in trick else "&e;" if "SYSTEM" in trick else "&x;"
        body = body.replace('name="', f'name="{ref}', 1)
    return trick + body, f"XML {short(trick, 40)}"


def t_xinclude(text: str, rng) -> tuple[str, str]:
    inc = '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd" parse="text"/>'
    return text.replace("</robot>", inc + "</robot>"), "XInclude"


def t_garbage(text: str, rng) -> tuple[str, str]:
    at = int(rng.integers(len(text) + 1))
    junk = pick(rng, ("\x00", "\x01\x02", "<", "&", "]]>", "<!--", "<?pi x?>", "<![CDATA[1 2 3]]>", "\ud800", "\ufffe", "&#0;",
                      "&#x110000;", "&#x31;", "<a:b/>", '"'))
    return text[:at] + junk + text[at:], f"inserted {junk!r} at {at}"


def t_declaration(text: str, rng) -> tuple[str, str]:
    decl = pick(rng, ('<?xml version="2.0"?>', '<?xml version="1.0" encoding="ebcdic"?>',
                      '<?xml version="1.0" encoding="utf-7"?>', '<?xml version="1.0" encoding="nonsense"?>',
                      '<?xml version="1.0" standalone="maybe"?>', "<?xml?>"))
    body = text.split("?>", 1)[-1] if text.startswith("<?xml") else text
    return decl + body, f"declaration {decl}"


def t_duplicate_attribute(text: str, rng) -> tuple[str, str]:
    return text.replace('name="', 'name="a" name="', 1), "duplicated attribute"


def t_namespace(text: str, rng) -> tuple[str, str]:
    body = text.split("?>", 1)[-1] if text.startswith("<?xml") else text
    return f'<wrapper xmlns="http://x">{body}</wrapper>', "wrapped in another root"


TEXT_MUTATIONS = (t_truncate, t_entity, t_xinclude, t_garbage, t_declaration, t_duplicate_attribute, t_namespace)


def encode(text: str, rng) -> tuple[object, str]:
    """The URDF as one of the forms a caller might pass (or a wrong one)."""
    form = int(rng.integers(13))
    body = text.split("?>", 1)[-1] if text.startswith("<?xml") else text
    raw = text.encode("utf-8", "surrogatepass")  # a lone surrogate (t_garbage) makes invalid UTF-8
    if form == 0:
        return raw, "utf-8 bytes"
    if form == 1:
        return b"\xef\xbb\xbf" + raw, "utf-8 bytes with BOM"
    if form == 2:
        return text.encode("utf-16", "surrogatepass"), "utf-16 bytes"
    if form == 3:
        return ('<?xml version="1.0" encoding="UTF-16"?>' + body).encode("utf-16-le", "surrogatepass"), "utf-16-le bytes, no BOM"
    if form == 4:
        return text.encode("utf-32", "surrogatepass"), "utf-32 bytes"
    if form == 5:
        return ('<?xml version="1.0" encoding="ISO-8859-1"?>' + body).encode("latin-1", "replace"), "latin-1 bytes, declared"
    if form == 6:
        return text.replace('name="', 'name="\u00e9', 1).encode("latin-1", "replace"), "latin-1 bytes, undeclared"
    if form == 7:
        return bytearray(raw), "bytearray"
    if form == 8:
        path = Path(f"case{rng.integers(1 << 30)}.urdf")
        path.write_text(text, errors="surrogatepass")
        return (path if rng.random() < 0.5 else str(path)), "file"
    if form == 9:
        return "\ufeff\n  " + text, "str with BOM and blank lead"
    if form == 10:
        return pick(rng, (memoryview(raw), raw.splitlines(), 42, None, io.StringIO(text))), "not a source"
    return text, "str"


def urdf_base(rng) -> tuple[str, str]:
    """(URDF text, its name): a bundled robot's file or a random generated tree."""
    if rng.random() < 0.5:
        path = pick(rng, sorted(URDF_DIR.glob("*.urdf")))
        return path.read_text(), path.stem
    n = int(rng.integers(1, 12))
    return tree_urdf(rng, n), f"tree{n}"


def urdf_case(rng, index: int) -> Case:
    """A URDF mutated in its tree and perhaps in its text, in some form, loaded and (if accepted) used."""
    text, base = urdf_base(rng)
    steps = []
    if rng.random() < 0.9:
        root = etree.fromstring(text.encode())
        for _ in range(int(rng.integers(1, 4))):
            steps.append(pick(rng, TREE_MUTATIONS)(root, rng))
        text = etree.tostring(root, encoding="unicode")
    if rng.random() < 0.3:
        text, step = pick(rng, TEXT_MUTATIONS)(text, rng)
        steps.append(step)
    source, form = encode(text, rng)

    def run():
        sound_robot(bioik.load_robot(source), rng)

    return Case("urdf", index, f"{base}: {'; '.join(steps) or 'unchanged'} ({form})", run)


# ------------------------------------------------------------------ robot family

_robots: dict[str, bioik.Robot] = {}


def pool_robot(name: str) -> bioik.Robot:
    """A robot of POOL, loaded once (in the parent, before the workers fork)."""
    if name not in _robots:
        source = tree_urdf(np.random.default_rng(0), 8, meshes=False) if name == "tree" else name
        _robots[name] = bioik.load_robot(source)
    return _robots[name]


def configuration(robot: bioik.Robot, rng):
    """A good configuration, or a hostile one."""
    good = robot.random_configuration(rng)
    r = rng.random()
    if r < 0.3:
        return good
    if r < 0.45:
        bad = good.copy()
        bad[int(rng.integers(len(bad)))] = pick(rng, (math.nan, math.inf, -math.inf, 1e308))
        return bad
    if r < 0.55:
        return good.tolist() + [0.0]
    if r < 0.6:
        return good.astype(np.float32)
    if r < 0.65:
        return list(good[:-1]) + [10**400]
    return hostile(rng)


def link(robot: bioik.Robot, rng):
    r = rng.random()
    return pick(rng, robot.link_names) if r < 0.6 else pick(rng, NAMES) if r < 0.8 else hostile(rng)


def robot_case(rng, index: int) -> Case:
    """One Robot method (or load_robot, snake) of a pool robot with good and bad arguments."""
    name = pick(rng, POOL)
    robot = pool_robot(name)
    method = pick(rng, ("check", "fk", "link_pose", "jacobian", "extrapolate", "full_configuration", "with_group", "with_frozen",
                        "random_configuration", "link_index", "load_robot", "snake"))
    q, lk = configuration(robot, rng), link(robot, rng)
    if method == "check":
        call, what = (lambda: finite(robot.check(q), "check")), f"check({short(q)})"
    elif method == "fk":
        links = pick(rng, (None, [lk], lk, [], [lk, lk]))
        Q = q if rng.random() < 0.6 else pick(rng, (np.zeros((3, robot.dof)), np.zeros((0, robot.dof)),
                                                     np.zeros((2, 2, robot.dof)), [q, q]))
        call, what = (lambda: finite(robot.fk(Q, links), "fk")), f"fk({short(Q)}, {short(links)})"
    elif method == "link_pose":
        call, what = (lambda: finite(robot.link_pose(q, lk), "link_pose")), f"link_pose({short(q)}, {short(lk)})"
    elif method == "jacobian":
        point = pick(rng, (None, [0.1, 0, 0], hostile(rng)))
        call = lambda: finite(robot.jacobian(q, lk, point), "jacobian")  # noqa: E731
        what = f"jacobian({short(q)}, {short(lk)}, {short(point)})"
    elif method == "extrapolate":
        Q = pick(rng, (np.zeros((2, robot.dof)), q, hostile(rng)))
        links = pick(rng, ([lk], lk, [], None))
        call = lambda: finite(robot.extrapolate(q, Q, links), "extrapolate")  # noqa: E731
        what = f"extrapolate({short(q)}, {short(Q)}, {short(links)})"
    elif method == "full_configuration":
        call, what = (lambda: robot.full_configuration(q)), f"full_configuration({short(q)})"
    elif method == "with_group":
        group = pick(rng, (list(robot.groups) or ["g"]) + [[lk], [(lk, lk)], {"chains": [[lk]]}, {"tips": lk}, {"joints": 5},
                                                           {"foo": []}, "", hostile(rng)])
        call, what = (lambda: sound_robot(robot.with_group(group), rng)), f"with_group({short(group)})"
    elif method == "with_frozen":
        var = pick(rng, robot.model.variable_names) if rng.random() < 0.7 else pick(rng, NAMES + (5, None, 1.5))
        values = pick(rng, ({var: hostile(rng)}, {var: 0.0}, hostile(rng), [0.0]))
        call, what = (lambda: sound_robot(robot.with_frozen(values), rng)), f"with_frozen({short(values)})"
    elif method == "random_configuration":
        seed, n = pick(rng, (None, 0, -1, "x", 1.5, 2**70)), pick(rng, (None, 0, -1, 3, 1.5, "2", np.int64(2)))
        call = lambda: finite(robot.random_configuration(seed, n), "random_configuration")  # noqa: E731
        what = f"random_configuration({short(seed)}, {short(n)})"
    elif method == "link_index":
        call, what = (lambda: robot.link_index(lk)), f"link_index({short(lk)})"
    elif method == "load_robot":
        source = pick(rng, bundled_names() + ["snake0", "snake-1", "snake3", "snake", "nope", "", "snake99999999999999"])
        group = pick(rng, (None, "manipulator", "nope", hostile(rng)))
        frozen = pick(rng, (None, {}, {"x": 0.0}, hostile(rng)))
        call = lambda: sound_robot(bioik.load_robot(source, group, frozen), rng)  # noqa: E731
        what = f"load_robot({source!r}, {short(group)}, {short(frozen)})"
    else:
        n = pick(rng, (1, 3, 0, -2, 2.5, "4", True, None, 10**400))
        length = pick(rng, (None, 0.1, 0, -1, math.nan, math.inf, "x"))
        call, what = (lambda: sound_robot(bioik.robots.snake(n, length), rng)), f"snake({short(n)}, {short(length)})"
    return Case("robot", index, f"{name}.{what}", call)


# ------------------------------------------------------------------ goals family

GOAL_TYPES = tuple(getattr(bioik, n) for n in bioik.goals.__all__ if n not in ("Goal", "AlignmentGoal"))


def _unit(rng) -> np.ndarray:
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def user_function(rng):
    """A goal's user function: sound, or returning nonsense, or raising."""
    kind = int(rng.integers(8))

    def function(x):
        if kind == 0:
            return float(np.sum(np.square(x))) * 0.1
        if kind == 1:
            return math.nan
        if kind == 2:
            return "cost"
        if kind == 3:
            raise UserError("the goal function fails")
        if kind == 4:
            return np.zeros((2, 2))
        if kind == 5:
            return None
        if kind == 6:
            return 1e308
        return np.asarray(x) * 0.0 + math.inf

    return function


def scene(rng) -> bioik.Scene:
    """A small scene: a box, perhaps a ball."""
    s = bioik.Scene()
    s.add_box("box", [0.2, 0.2, 0.2], pose=np.array([[1, 0, 0, 0.5], [0, 1, 0, 0], [0, 0, 1, 0.3], [0, 0, 0, 1.0]]))
    if rng.random() < 0.5:
        s.add_sphere("ball", 0.1, pose=np.array([[1, 0, 0, -0.4], [0, 1, 0, 0.2], [0, 0, 1, 0.5], [0, 0, 0, 1.0]]))
    return s


def good_field(name: str, robot: bioik.Robot, rng, goal_type):
    """A sound value for a goal field, by its name."""
    q = robot.random_configuration(rng)
    tip = pick(rng, robot.tips or robot.link_names)
    if name == "link":
        return tip
    if name == "links":
        return [tip] if len(robot.link_names) < 2 else [robot.link_names[-2], tip]
    if name in ("position", "target", "point", "trocar"):
        return robot.link_pose(q, tip)[:3, 3] + rng.normal(scale=0.05, size=3)
    if name in ("direction", "axis", "normal", "gravity"):
        return _unit(rng)
    if name == "pose":
        return robot.link_pose(q, tip)
    if name == "rotation":
        R = robot.link_pose(q, tip)[:3, :3]
        return R if rng.random() < 0.5 else quat_from_matrix(R)
    if name == "angle":
        return float(rng.uniform(0, math.pi))
    if name in ("fov_angle", "normal_angle"):
        return float(rng.uniform(0.05, math.pi))
    if name in ("distance", "epsilon", "margin", "standoff"):
        return float(rng.uniform(0, 0.3))
    if name == "distance_band":
        return float(rng.uniform(0.001, 0.3))
    if name in ("weight", "position_weight", "rotation_scale"):
        return float(rng.uniform(0, 2))
    if name in ("secondary", "self_collision", "lower_grids", "at_point"):
        return bool(rng.random() < 0.3)
    if name in ("tolerance", "position_tolerance", "rotation_tolerance"):
        return pick(rng, (None, 1e-3, 1e-5)) if goal_type in (bioik.PoseGoal, bioik.PositionGoal, bioik.OrientationGoal) else 1e-3
    if name == "variable":
        return pick(rng, robot.variable_names)
    if name == "value":
        return float(q[0])
    if name == "function":
        return user_function(rng)
    if name == "scene":
        return scene(rng)
    if name == "obstacle":
        return pick(rng, (None, "box"))
    if name == "allowed":
        return pick(rng, ((), [(tip, "box")]))
    return None  # spheres: the robot's default cover


def bad_field(name: str, robot: bioik.Robot, rng):
    """A hostile value for a goal field: of its own kind gone wrong, or anything."""
    if rng.random() < 0.4:
        return hostile(rng)
    if name in ("link", "variable", "obstacle"):
        return pick(rng, NAMES + ("nope", 5, None, b"tool0"))
    if name == "links":
        return pick(rng, ([], ["nope"], "tool0", [5], [robot.link_names[0]] * 3, ["", ""]))
    if name in ("position", "target", "point", "trocar", "direction", "axis", "normal", "gravity"):
        return pick(rng, (np.zeros(2), np.zeros(4), np.zeros((3, 1)), [0, 0, 0], [1e308, -1e308, 1e308], ["1", "2", "3"],
                          [1, 2, math.nan]))
    if name == "pose":
        T = np.eye(4)
        T[:3, :3] *= pick(rng, (2.0, 0.0, -1.0, 1e-200))
        return pick(rng, (T, np.eye(3), np.eye(4)[:3], np.full((4, 4), math.nan), np.eye(4) * 1e308, np.ones((4, 4)),
                          [[1, 0], [0, 1]]))
    if name == "rotation":
        return pick(rng, (np.zeros(4), np.zeros((3, 3)), np.eye(3) * 2, np.ones(3), [1, 0, 0, math.nan], np.eye(4), [1e308] * 4))
    if name in ("weight", "position_weight", "rotation_scale", "angle", "distance", "epsilon", "margin", "value"):
        return pick(rng, (-1.0, 1e300, 1e7, math.nan, math.inf, -1e-300, 10**400, "1"))
    if name in ("tolerance", "position_tolerance", "rotation_tolerance"):
        return pick(rng, (-1.0, -1e-300, math.inf, math.nan, "0.1", 10**400))
    if name == "function":
        return pick(rng, (None, 5, "f", np.sum))
    if name == "scene":
        return pick(rng, (None, "scene", bioik.Scene(), 5))
    if name == "allowed":
        return pick(rng, ([("a",)], "ab", [(1, 2)], [("tool0", "nope")], 5))
    return hostile(rng)


def goal_fields(goal_type, robot: bioik.Robot, rng, bad: float) -> tuple[dict, list[str]]:
    """The fields of a goal of goal_type on robot, each hostile with probability `bad`; the bad ones described."""
    values, wrong = {}, []
    for f in fields(goal_type):
        if not f.init:
            continue
        if rng.random() < bad:
            values[f.name] = bad_field(f.name, robot, rng)
            wrong.append(f"{f.name}={short(values[f.name], 30)}")
        elif (f.default is MISSING and f.default_factory is MISSING) or f.name == "position" or rng.random() < 0.7:
            values[f.name] = good_field(f.name, robot, rng, goal_type)
    return values, wrong


def goals_case(rng, index: int, solvers: list[str]) -> Case:
    """One to three goals of any types, some fields bad (perhaps one reassigned after the goal is built), solved on a budget."""
    name = pick(rng, ("ur5", "panda", "dual_ur5", "tree"))
    robot = pool_robot(name)
    types = [pick(rng, GOAL_TYPES) for _ in range(int(rng.integers(1, 4)))]
    solver = pick(rng, solvers + [None])
    budget = int(rng.integers(1, 20))
    bad = pick(rng, (0.0, 0.1, 0.3))
    seed = int(rng.integers(1 << 31))
    specs = [goal_fields(t, robot, rng, bad) for t in types]
    wrong = [w for _, ws in specs for w in ws]
    reassigned = None  # (goal, field, value): a field set after the goal is built
    k = int(rng.integers(len(types)))
    names = [f.name for f in fields(types[k]) if f.init]
    if names and rng.random() < 0.15:
        field = pick(rng, names)
        reassigned = (k, field, bad_field(field, robot, rng))
        wrong.append(f"then goals[{k}].{field}={short(reassigned[2], 30)}")
    what = f"{name} {'+'.join(t.__name__ for t in types)} solver={solver} {'; '.join(wrong) or 'good fields'}"

    def run():
        goals = [t(**values) for t, (values, _) in zip(types, specs)]
        if reassigned is not None:
            setattr(goals[reassigned[0]], reassigned[1], reassigned[2])
        res = bioik.solve(robot, goals, solver=solver, max_iterations=budget, random_seed=seed, timeout=1.0)
        sound_result(robot, res, goals)

    return Case("goals", index, what, run)


# ------------------------------------------------------------------ solve family


def callback(rng):
    """A solution callback: sound, or returning a non-bool, or raising."""
    kind = int(rng.integers(9))
    calls = [0]

    def cb(q):
        calls[0] += 1
        if kind == 0:
            return True
        if kind == 1:
            return calls[0] > 2
        if kind == 2:
            return None
        if kind == 3:
            return 1
        if kind == 4:
            return "yes"
        if kind == 5:
            raise UserError("the callback fails")
        if kind == 6:
            return np.array([True, False])
        if kind == 7:
            q[:] = math.nan  # a copy: must not reach the answer
            return False
        return np.bool_(True)

    return pick(rng, (cb, cb, cb, 5, "f", [cb]))


def solve_case(rng, index: int, solvers: list[str]) -> Case:
    """Good goals solved with one to three bad solve arguments."""
    name = pick(rng, ("ur5", "panda", "snake7", "tree"))
    robot = pool_robot(name)
    tip = pick(rng, robot.tips)
    T = robot.link_pose(robot.random_configuration(rng), tip)
    goals = pick(rng, ([bioik.PoseGoal(tip, T)], [bioik.PositionGoal(tip, T[:3, 3])],
                       [bioik.PositionGoal(tip, T[:3, 3]), bioik.CenterJointsGoal()],
                       [bioik.OrientationGoal(tip, T[:3, :3]), bioik.MinimalDisplacementGoal()]))
    kwargs = {"max_iterations": int(rng.integers(1, 20)), "random_seed": int(rng.integers(1 << 31)), "timeout": 0.5,
              "solver": pick(rng, solvers)}
    wrong = []
    for _ in range(int(rng.integers(1, 4))):
        arg = pick(rng, ("seed", "timeout", "solver", "params", "max_iterations", "random_seed", "position_tolerance",
                         "rotation_tolerance", "acceptance", "scene", "callback", "goals"))
        if arg == "seed":
            value = configuration(robot, rng)
        elif arg == "timeout":
            value = pick(rng, (0, -1, math.nan, math.inf, 1e-300, "0.1", True, None, 10**400, np.float32(0.01), 1e-9))
        elif arg == "solver":
            value = pick(rng, ("", "LM", "nope", 5, None, "lm ", "peer:rtb", ["lm"]))
        elif arg == "max_iterations":
            value = pick(rng, (0, -1, 1.5, 10**30, True, np.int64(3), "5", math.nan, 2**62))
        elif arg == "random_seed":
            value = pick(rng, (-1, 2**70, 1.5, "x", np.int64(3), True, None, -(2**70)))
        elif arg in ("position_tolerance", "rotation_tolerance"):
            value = pick(rng, (-1, math.nan, math.inf, "x", 1e308, 0, None, 10**400))
        elif arg == "acceptance":
            value = pick(rng, ("foo", None, "kdl", "trac", "", 5))
        elif arg == "scene":
            value = pick(rng, (scene(rng), "scene", 5, bioik.Scene()))
        elif arg == "callback":
            value = callback(rng)
        elif arg == "goals":
            value = pick(rng, ([], goals[0], (goals[0],), iter(goals), [goals[0], "x"], "goal", None, [None]))
        else:
            solver = kwargs["solver"]
            specs = registry.SOLVERS[solver].defaults if isinstance(solver, str) and solver in registry.SOLVERS else {}
            pname = pick(rng, sorted(specs) + ["nope", "", "max_iterations"]) if specs else pick(rng, sorted(SPECS))
            value = {pname: pick(rng, (-1, 0, 1, 1e300, math.nan, "3", None, 2.5, 10**400, True, [1], 1000, 10**9))}
        if arg == "params":
            kwargs.update(value)
        else:
            kwargs[arg] = value
        wrong.append(f"{arg}={short(value, 40)}")
    call_goals = kwargs.pop("goals", goals)

    def run():
        sound_result(robot, bioik.solve(robot, call_goals, **kwargs), call_goals)

    return Case("solve", index, f"{name} {'; '.join(wrong)}", run)


# ------------------------------------------------------------------ cli family

FIXTURES: dict[str, str] = {}  # name → absolute path, made by `make_fixtures`


def make_fixtures(folder: Path) -> None:
    """Files the CLI cases name: good and bad URDFs, scenes, experiment files, DBs."""
    files = {
        "good.urdf": tree_urdf(np.random.default_rng(1), 5),
        "bad.urdf": "<robot name='x'><link name='a'></robot>",
        "empty.urdf": "",
        "notes.txt": "not a robot\n",
        "scene.toml": '[[obstacle]]\nname = "table"\nbox = [1.0, 1.0, 0.1]\nposition = [0.6, 0.0, -0.1]\n',
        "bad_scene.toml": "[[obstacle]]\nshape = 'blob'\n",
        "exp.toml": 'robots = ["ur5"]\ntests = ["fkik"]\ntargets = 2\ntimeout = 0.001\ndb = "exp.db"\n',
        "not_a_db.db": "SQLite format 3\x00 but not really",
        "binary.db": "\x00\x01\x02" * 100,
    }
    for name, text in files.items():
        (folder / name).write_text(text)
        FIXTURES[name] = str(folder / name)
    (folder / "dir").mkdir()
    FIXTURES["dir"] = str(folder / "dir")
    FIXTURES["missing"] = str(folder / "missing" / "x.urdf")
    db = folder / "results.db"
    with contextlib.redirect_stdout(io.StringIO()):
        bioik.cli.main(["bench", "run", "--robot", "ur5", "--test", "fkik", "--targets", "2", "--timeout", "0.001",
                        "--db", str(db)])
    FIXTURES["results.db"] = str(db)
    data = db.read_bytes()
    (folder / "truncated.db").write_bytes(data[: len(data) // 2])
    FIXTURES["truncated.db"] = str(folder / "truncated.db")


def _numbers(rng, n: int, good: Callable[[], str]) -> list[str]:
    """n number texts from `good`, one of them perhaps replaced by a bad one."""
    out = [good() for _ in range(n)]
    if rng.random() < 0.5 and out:
        out[int(rng.integers(n))] = pick(rng, ("nan", "inf", "-inf", "1e400", "abc", "", "-0", "1e308", "0x1", "1_000"))
    return out


def cli_argv(rng) -> list[str]:
    """A `bioik` command line: a subcommand with good and bad values, paths that are missing,
    folders or files of the wrong kind, and now and then a stray token."""
    robot = pick(rng, ("ur5", "panda", "snake3", "snake0", "snake", "nope", "", FIXTURES["good.urdf"], FIXTURES["bad.urdf"],
                       FIXTURES["empty.urdf"], FIXTURES["notes.txt"], FIXTURES["dir"], FIXTURES["missing"], "snake99999999999999",
                       "-", "\u00e9", FIXTURES["results.db"]))
    link_arg = lambda: pick(rng, ("tool0", "tip", "base_link", "panda_link8", "nope", "", "l5"))  # noqa: E731
    dbs = ["new.db", ""] + [FIXTURES[k] for k in ("results.db", "not_a_db.db", "binary.db", "truncated.db", "notes.txt", "dir",
                                                   "missing", "good.urdf")]
    db = lambda: pick(rng, dbs)  # noqa: E731
    command = pick(rng, ("robots", "info", "fk", "solve", "warmup", "bench run", "bench report", "bench plot", "bench tune",
                         "nope", "bench", "--help", ""))
    argv = command.split()
    if command in ("info", "fk", "solve", "warmup"):
        argv.append(robot)
        if rng.random() < 0.3:
            argv += ["--group", pick(rng, ("manipulator", "panda_arm", "nope", "", "hand"))]
    if command == "info" and rng.random() < 0.3:
        argv.append("--collision")
    if command == "fk":
        if rng.random() < 0.7:
            argv += ["--q", *_numbers(rng, int(rng.integers(0, 9)), lambda: f"{rng.uniform(-2, 2):.3f}")]
        for _ in range(int(rng.integers(0, 3))):
            argv += ["--link", link_arg()]
    if command == "solve":
        if rng.random() < 0.9:
            quaternion = pick(rng, (["1", "0", "0", "0"], ["0", "0", "0", "0"], ["1e308", "1e308", "0", "0"],
                                    ["nan", "1", "0", "0"]))
            pose = [f"{v:.3f}" for v in rng.uniform(-0.5, 0.5, 3)] + quaternion
            argv += ["--pose", *pose[: int(rng.integers(5, 8)) if rng.random() < 0.2 else 7]]
        options = {"--link": link_arg, "--solver": lambda: pick(rng, ("lm", "bio1", "nope", "", "kdl")),
                   "--timeout": lambda: pick(rng, ("0.005", "0", "-1", "nan", "inf", "1e-300", "abc", "1e400")),
                   "--random-seed": lambda: pick(rng, ("0", "-1", "1.5", "9" * 30, "abc")),
                   "--scene": lambda: FIXTURES[pick(rng, ("scene.toml", "bad_scene.toml", "missing", "dir", "notes.txt"))],
                   "--allow": lambda: pick(rng, ("base_link:table", "abc", ":", "tool0:nope", "a:b:c"))}
        for opt in rng.permutation(list(options))[: int(rng.integers(0, 4))]:
            argv += [str(opt), options[opt]()]
        if rng.random() < 0.3:
            argv += ["--seed-config", *_numbers(rng, int(rng.integers(0, 9)), lambda: f"{rng.uniform(-1, 1):.3f}")]
    if command == "warmup" and rng.random() < 0.8:
        argv += ["--solver", pick(rng, ("lm", "nope", "", "kdl"))]
    if command == "bench run":
        if rng.random() < 0.2:
            argv.append(pick(rng, (FIXTURES["exp.toml"], FIXTURES["notes.txt"], FIXTURES["missing"], FIXTURES["dir"],
                                   FIXTURES["bad_scene.toml"], FIXTURES["binary.db"])))
        options = {"--robot": lambda: robot, "--tip": link_arg,
                   "--test": lambda: pick(rng, ("fkik", "unreachable", "grid", "track", "scale", "nope", "")),
                   "--solver": lambda: pick(rng, ("lm", "nope", "peer:nope", "peer:ikpy", "")),
                   "--param": lambda: pick(rng, ("damping=1e300", "damping=-1", "nope=1", "=", "x", "damping=nan",
                                                 "max_iterations=" + "9" * 400, "damping=\"a\"", "damping=0.01")),
                   "--targets": lambda: pick(rng, ("1", "2", "0", "-1", "abc", "1.5")),
                   "--timeout": lambda: pick(rng, ("0.001", "0", "-1", "nan", "inf", "abc")),
                   "--seed": lambda: pick(rng, ("0", "-1", "abc", "9" * 30)),
                   "--seed-mode": lambda: pick(rng, ("random", "none", "fixed", "warm", "nope")),
                   "--seed-config": lambda: " ".join(_numbers(rng, 6, lambda: "0.1")),
                   "--db": db}
        for opt in rng.permutation(list(options))[: int(rng.integers(0, 7))]:
            value_text = options[opt]()
            argv += [str(opt), *(value_text.split() if opt == "--seed-config" else [value_text])]
        if "--targets" not in argv:
            argv += ["--targets", "2"]
        if "--timeout" not in argv:
            argv += ["--timeout", "0.001"]
    if command in ("bench report", "bench plot"):
        if rng.random() < 0.9:
            argv.append(db())
        if command == "bench plot" and rng.random() < 0.9:
            argv += ["--out", pick(rng, ("plots", FIXTURES["notes.txt"], FIXTURES["missing"], FIXTURES["dir"], ""))]
    if command == "bench tune":
        options = {"--robot": lambda: robot, "--test": lambda: pick(rng, ("fkik", "scale", "nope")),
                   "--solver": lambda: pick(rng, ("lm", "bio2_memetic", "nope")),
                   "--trials": lambda: pick(rng, ("1", "0", "-1", "abc")), "--targets": lambda: pick(rng, ("2", "0", "-3")),
                   "--timeout": lambda: pick(rng, ("0.001", "0", "nan", "inf")), "--db": lambda: pick(rng, ("tune.db", db())),
                   "--space": lambda: pick(rng, ("damping=1:2", "damping=2:1", "damping=0:1:log", "nope=1:2", "damping=1",
                                                 "damping=nan:1", "damping=1:" + "9" * 400, "damping=a:b", "damping=1:2:lin")),
                   "--param": lambda: pick(rng, ("damping=1", "damping=-1", "x=1", "=")),
                   "--study": lambda: pick(rng, ("s", "", "\u00e9" * 300)), "--tip": link_arg}
        for opt in rng.permutation(list(options))[: int(rng.integers(2, 10))]:
            argv += [str(opt), options[opt]()]
        if "--targets" not in argv:
            argv += ["--targets", "2"]
        if "--timeout" not in argv:
            argv += ["--timeout", "0.001"]
    if rng.random() < 0.1:  # a stray token or flag
        argv.insert(int(rng.integers(len(argv) + 1)), pick(rng, ("--nope", "-x", "--", "--q", "\u00e9", "--timeout=1", "-h")))
    return argv


def check_cli(argv: list[str], status, out: str, err: str) -> None:
    """Raise Refused (clean refusal) or BadAnswer (traceback, multi-line error, odd status); return if ok."""
    if "Traceback" in out or "Traceback" in err:
        raise BadAnswer(f"traceback: {err.strip().splitlines()[-1] if err.strip() else out.strip().splitlines()[-1]}")
    if status in (0, None) or (status == 1 and argv[:1] == ["solve"] and "FAILED" in out):
        return
    if status == 2:
        lines = err.strip().splitlines()
        if lines and ": error: " in lines[-1]:
            raise Refused(lines[-1])
        raise BadAnswer(f"exit status 2 without one error line: {err.strip()[-200:]!r}")
    raise BadAnswer(f"exit status {status}: {err.strip()[-200:]!r}")


def _env() -> dict[str, str]:
    """The environment of a `python3 -m bioik.cli` process: this bioik first on its path."""
    path = [str(Path(BIOIK_SRC).parent)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def cli_case(rng, index: int, every: int) -> Case:
    """A command line run in this process, or (every `every`-th case) as `python3 -m bioik.cli`."""
    argv = cli_argv(rng)
    if every and index % every == every - 1:
        def run():
            try:
                p = subprocess.run([sys.executable, "-m", "bioik.cli", *argv], capture_output=True, text=True,
                                   timeout=SUBPROCESS_LIMIT - 10, env=_env())
            except subprocess.TimeoutExpired:
                raise Hang(f"python3 -m bioik.cli ran over {SUBPROCESS_LIMIT - 10:g} s") from None
            if p.returncode < 0:
                raise BadAnswer(f"killed by signal {-p.returncode}")
            check_cli(argv, p.returncode, p.stdout, p.stderr)

        return Case("cli", index, f"[process] bioik {' '.join(map(short, argv))}", run, SUBPROCESS_LIMIT)

    def run():
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = bioik.cli.main(argv)
            except SystemExit as e:
                status = e.code
            except Exception as e:  # noqa: BLE001 — whatever escapes main is a traceback for the user
                raise BadAnswer(f"uncaught {type(e).__name__}: {short(str(e), 150)} at {_where(e)}") from None
        check_cli(argv, status, out.getvalue(), err.getvalue())

    return Case("cli", index, f"bioik {' '.join(map(short, argv))}", run)


# ------------------------------------------------------------------ big family


def _chain_links(n: int, pad: int = 0) -> str:
    """n revolute links in a chain, each padded to about `pad` bytes with a long name."""
    name = "x" * max(pad - 200, 0)
    parts = [f'<link name="{name}0"/>']
    for i in range(1, n + 1):
        parts.append(f'<link name="{name}{i}"/><joint name="j{i}" type="revolute"><parent link="{name}{i - 1}"/>'
                     f'<child link="{name}{i}"/><origin xyz="0 0 0.01"/><axis xyz="0 0 1"/>'
                     '<limit lower="-1" upper="1" velocity="1"/></joint>')
    return '<robot name="big">' + "".join(parts) + "</robot>"


def _mimic_chain(n: int) -> str:
    """A chain of n revolute joints, each mimicking the one before."""
    parts = ['<link name="l0"/>']
    for i in range(1, n + 1):
        mimic = f'<mimic joint="j{i - 1}"/>' if i > 1 else ""
        parts.append(f'<link name="l{i}"/><joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
                     f'<axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="1"/>{mimic}</joint>')
    return '<robot name="mimics">' + "".join(parts) + "</robot>"


VISUAL = '<visual><geometry><sphere radius="0.01"/></geometry></visual>'


def _swap(text: str, old: str, new: str) -> str:
    """text with `old` (which must be there: a case that changes nothing tests nothing) replaced by `new`."""
    if old not in text:
        raise RuntimeError(f"fuzz: {old!r} is not in the text to change")
    return text.replace(old, new)


def big_sources(rng) -> list[tuple[str, Callable[[], object], float]]:
    """(description, source maker, time limit) of each large case. Loading is linear in the
    links, at ~1 ms a link (yourdfpy's parse and bioik's FK program): 250,000 of them take
    minutes, hence their own limit."""
    ur5 = (URDF_DIR / "ur5.urdf").read_text()
    body = ur5.split("?>", 1)[1]
    size = 50 * MB
    return [
        ("5,000-link snake (text)", lambda: snake_urdf(5000), BIG_LIMIT),
        ("5,000-joint random tree", lambda: tree_urdf(rng, 5000, 0.05), BIG_LIMIT),
        ("5,000-link chain of mimics", lambda: _mimic_chain(5000), BIG_LIMIT),
        ("5,000-link chain with a cycle at the end", lambda: _swap(_chain_links(5000), '<parent link="0"/>', '<parent link="5000"/>'),
         BIG_LIMIT),
        ("5,000-link chain truncated", lambda: _chain_links(5000)[: -int(rng.integers(10, 5000))], BIG_LIMIT),
        ("50 MB: ur5 padded by a comment", lambda: _swap(body, "<robot", f"<!--{'x' * size}-->\n<robot"), BIG_LIMIT),
        ("50 MB: ur5 padded by whitespace", lambda: _swap(body, "</robot>", " " * size + "</robot>"), BIG_LIMIT),
        ("50 MB: a 25 MB link name (twice)", lambda: _swap(body, '"tool0"', f'"{"n" * (size // 2)}"'), BIG_LIMIT),
        ("50 MB: a number", lambda: _swap(body, 'xyz="0 0 0.089159"', f'xyz="0 0 0.{"0" * size}1"'), BIG_LIMIT),
        ("50 MB: 250,000-link chain", partial(_chain_links, 250_000), 900.0),
        ("50 MB: 5,000-link chain with 3 kB names", partial(_chain_links, 5000, 3_500), BIG_LIMIT),
        ("50 MB: a link with 800,000 visuals",
         lambda: _swap(body, '<link name="tool0"/>', f'<link name="tool0">{VISUAL * (size // len(VISUAL))}</link>'), BIG_LIMIT),
        ("50 MB: ur5 in UTF-16 padded by a comment",
         lambda: _swap(body, "<robot", f"<!--{'x' * (size // 2)}-->\n<robot").encode("utf-16"), BIG_LIMIT),
        ("nested 100,000 deep", lambda: _swap(body, "</robot>", "<a>" * 100_000 + "</a>" * 100_000 + "</robot>"), BIG_LIMIT),
        ("10 MB: 1,000,000 attributes on a link",
         lambda: _swap(body, '<link name="base_link"', '<link name="base_link" ' + " ".join(f'a{i}="1"' for i in range(10**6))),
         BIG_LIMIT),
        ("snake5000 by name", lambda: "snake5000", BIG_LIMIT),
    ]


BIG_COUNT = len(big_sources(np.random.default_rng()))


def big_case(rng, index: int) -> Case:
    """One of the large inputs, loaded and (if accepted) used."""
    what, make, limit = big_sources(rng)[index % BIG_COUNT]

    def run():
        source = make()
        robot = bioik.load_robot(source)
        sound_robot(robot, rng, budget=2)

    return Case("big", index, what, run, limit)


# ------------------------------------------------------------------ running


def make_case(family: str, seed: int, index: int, solvers: list[str], every: int = SUBPROCESS_EVERY) -> Case:
    """Case `index` of `family`, the same for the same seed (and solvers) on every run."""
    rng = np.random.default_rng([seed, FAMILIES.index(family), index])
    if family == "urdf":
        return urdf_case(rng, index)
    if family == "robot":
        return robot_case(rng, index)
    if family == "goals":
        return goals_case(rng, index, solvers)
    if family == "solve":
        return solve_case(rng, index, solvers)
    if family == "cli":
        return cli_case(rng, index, every)
    return big_case(rng, index)


def _where(e: BaseException) -> str:
    """file:line where the exception was raised."""
    frames = traceback.extract_tb(e.__traceback__)
    if not frames:
        return "?"
    f = frames[-1]
    return f"{Path(f.filename).name}:{f.lineno}"


def _deliberate(e: BaseException) -> bool:
    """Raised on purpose by bioik: the innermost frame is a `raise` statement in bioik's source."""
    frames = traceback.extract_tb(e.__traceback__)
    return bool(frames) and frames[-1].filename.startswith(BIOIK_SRC) and (frames[-1].line or "").startswith("raise")


def classify(case: Case) -> tuple[str, str]:
    """(kind, detail) of running the case here."""
    try:
        case.run()
    except (Refused, UserError) as e:
        return "refused", str(e)
    except Hang as e:
        return "hang", str(e)
    except BadAnswer as e:
        return "crash", str(e)
    except (BioikError, ValueError, TypeError) as e:
        message = str(e).strip()
        if not message:
            return "crash", f"{type(e).__name__} without a message at {_where(e)}"
        if isinstance(e, BioikError) or _deliberate(e):
            return "refused", f"{type(e).__name__}: {short(message, 200)}"
        return "crash", f"unchecked {type(e).__name__} at {_where(e)}: {short(message, 200)}"
    except Exception as e:  # noqa: BLE001 — the point: anything else is a crash
        return "crash", f"{type(e).__name__} at {_where(e)}: {short(str(e), 200)}"
    return "ok", ""


def _serve(conn, seed: int, solvers: list[str], every: int, folder: str) -> None:
    """Worker: run the cases the parent sends, each in this process, in a scratch folder
    inside `folder`."""
    os.setpgrp()  # its own process group: the parent can stop it with whatever it started
    os.chdir(tempfile.mkdtemp(prefix="worker-", dir=folder))
    warnings.simplefilter("ignore")
    logging.getLogger("bioik").setLevel(logging.ERROR)
    while True:
        job = conn.recv()
        if job is None:
            return
        family, index = job
        case = make_case(family, seed, index, solvers, every)
        conn.send((case.what, case.limit))
        t0 = time.monotonic()
        kind, detail = classify(case)
        conn.send((kind, detail, time.monotonic() - t0))


class Worker:
    """A forked worker process that runs cases under a time limit (restarted after a hang or a death)."""

    def __init__(self, seed: int, solvers: list[str], every: int, folder: str):
        self.args, self.process = (seed, solvers, every, folder), None

    def start(self) -> None:
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, *self.args), daemon=True)
        self.process.start()
        child.close()

    def stop(self) -> None:
        if self.process is not None and self.process.is_alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if self.process is not None:
            self.process.join()
        self.process = None

    def run(self, family: str, index: int) -> tuple[str, str, str, float]:
        """(kind, what, detail, seconds) of one case."""
        if self.process is None:
            self.start()
        self.conn.send((family, index))
        what = f"{family} #{index}"
        try:
            if not self.conn.poll(BIG_LIMIT):
                self.stop()
                return "hang", what, "no case description (the generator hangs)", BIG_LIMIT
            what, limit = self.conn.recv()
            if self.conn.poll(limit):
                kind, detail, seconds = self.conn.recv()
                return kind, what, detail, seconds
            self.stop()
            return "hang", what, f"over {limit:g} s", limit
        except EOFError:
            self.process.join(1)
            code = self.process.exitcode
            self.process = None
            return "crash", what, f"the worker died (exit status {code})", 0.0


def warm_up(solvers: list[str]) -> None:
    """Load the pool robots and every solver's kernels, sphere covers and imports before the
    workers fork, so no case pays for compiling."""
    import bioik.bench.plot  # noqa: F401 — matplotlib
    import bioik.bench.tune  # noqa: F401 — optuna

    for name in POOL:
        robot = pool_robot(name)
        tip = robot.tips[0]
        T = robot.link_pose(robot.center(), tip)
        robot.extrapolate(robot.center(), [robot.center()], [tip])
        rng = np.random.default_rng(0)
        structures = [[bioik.PoseGoal(tip, T)], [bioik.PositionGoal(tip, T[:3, 3]), bioik.OrientationGoal(tip, T[:3, :3])],
                      [bioik.JointFunctionGoal(lambda q: q * 0.0)],
                      [t(**goal_fields(t, robot, rng, 0.0)[0]) for t in GOAL_TYPES
                       if t not in (bioik.LinkFunctionGoal, bioik.JointFunctionGoal)]]
        for s in solvers + [None]:
            for goals in structures:
                with contextlib.suppress(BioikError, ValueError, TypeError):  # a goal on a link without spheres …
                    bioik.solve(robot, goals, solver=s, max_iterations=1, random_seed=0, callback=lambda q: True)
                    bioik.solve(robot, goals, solver=s, max_iterations=1, random_seed=0)


def run(families: list[str], cases: int, seed: int, solvers: list[str], indices: list[int] | None = None,
        every: int = SUBPROCESS_EVERY, progress: bool = False) -> tuple[dict[str, Counter], list[tuple[str, str, str, str]]]:
    """Counts of each kind per family, and the (family, kind, what, detail) of every crash and hang;
    every `every`-th CLI case runs as a process of its own (0: none)."""
    with tempfile.TemporaryDirectory(prefix="bioik-fuzz-") as folder:
        os.environ.setdefault("BIOIK_CACHE_DIR", str(Path(folder) / "cache"))
        make_fixtures(Path(folder))
        warm_up(solvers)
        worker = Worker(seed, solvers, every, folder)
        counts: dict[str, Counter] = {f: Counter() for f in families}
        failures = []
        try:
            for family in families:
                count = BIG_COUNT if family == "big" and indices is None else cases
                t0 = time.monotonic()
                for index in indices if indices is not None else range(count):
                    kind, what, detail, seconds = worker.run(family, index)
                    counts[family][kind] += 1
                    if kind in ("crash", "hang"):
                        failures.append((family, kind, f"#{index} {what}", detail))
                    if progress and (kind in ("crash", "hang") or family == "big"):
                        print(f"  {kind}: {family} #{index} {what} ({seconds:.1f} s)\n      {detail}", flush=True)
                if progress:
                    print(f"{family}: {sum(counts[family].values())} cases in {time.monotonic() - t0:.0f} s", flush=True)
        finally:
            worker.stop()
    return counts, failures


def table(counts: dict[str, Counter]) -> str:
    """The counts of each kind per family, and their totals."""
    lines = [f"{'family':<8}" + "".join(f"{k:>9}" for k in ("cases",) + KINDS)]
    total = Counter()
    for family, c in counts.items():
        lines.append(f"{family:<8}{sum(c.values()):>9}" + "".join(f"{c[k]:>9}" for k in KINDS))
        total.update(c)
    lines.append(f"{'total':<8}{sum(total.values()):>9}" + "".join(f"{total[k]:>9}" for k in KINDS))
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=500, help="cases per family (big: its fixed set)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    ap.add_argument("--solvers", nargs="+", default=registry.names(), choices=registry.names())
    ap.add_argument("--index", type=int, nargs="+", help="replay these case numbers only (with --families)")
    ap.add_argument("--show", type=int, default=30, help="failing cases listed at the end")
    args = ap.parse_args()
    counts, failures = run(args.families, args.cases, args.seed, args.solvers, args.index, progress=True)
    print(table(counts))
    for family, kind, what, detail in failures[: args.show]:
        print(f"{kind:<6} {family:<6} {what}\n       {detail}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
