"""The documentation site: `mkdocs build --strict` succeeds (a broken reference, link or
docstring section fails it), and every function and method the API reference renders has
Args/Returns sections. Both read the sources statically (griffe): no kernel compiles."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

mkdocs = pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings-python is not installed: pip install -e '.[docs]'")
griffe = pytest.importorskip("griffe", reason="griffe (with mkdocstrings-python) is not installed")

ROOT = Path(__file__).resolve().parents[1]


def test_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                           "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-4000:]
    for page in ("index.html", "goals/index.html", "solvers/index.html", "api/solving/index.html"):
        assert (site / page).is_file(), page
    assert 'id="bioik.solvers.api.solve"' in (site / "api/solving/index.html").read_text()
    shutil.rmtree(site)


def _directives():
    """(object path, member names or None for all, [] for none) of every `:::` in docs/api."""
    for md in sorted((ROOT / "docs/api").glob("*.md")):
        lines = md.read_text().splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"::: (\S+)", line)
            if m:
                opts = re.search(r"members: (\[.*\]|false)", "\n".join(lines[i + 1:i + 4]))
                members = None if opts is None else [] if opts.group(1) == "false" else [s.strip() for s in opts.group(1)[1:-1].split(",")]
                yield m.group(1), members


def _sections(obj) -> dict:
    return {s.kind.value: s for s in (obj.docstring.parsed if obj.docstring else [])}


def _missing(fn, where: str, owner=None) -> list[str]:
    """What `fn`'s docstring (or, for a constructor, its class's) lacks: parameters not under
    Args (or, for a data class, Attributes), and a Returns section when fn returns something."""
    sec = _sections(owner or fn)
    documented = {p.name.lstrip("*") for p in sec["parameters"].value} if "parameters" in sec else set()
    if owner is not None and "attributes" in sec:
        documented |= {a.name for a in sec["attributes"].value}
    out = [f"{where}: no Args entry for {p.name}" for p in fn.parameters if p.name not in ("self", "cls") and p.name not in documented]
    if owner is None and fn.returns is not None and str(fn.returns) != "None" and "returns" not in sec and "property" not in fn.labels:
        out.append(f"{where}: no Returns section")
    return out


def _check(package, path: str, members) -> list[str]:
    obj = package[path.removeprefix("bioik.")]
    if obj.is_function:
        return _missing(obj, path)
    out = []
    if obj.is_class:
        init = obj.members.get("__init__")
        if init is not None and not init.is_alias:
            out += _missing(init, f"{path}.__init__", owner=obj)
    for name, member in obj.members.items():
        if members == [] or name.startswith("_") or (members is not None and name not in members):
            continue
        if obj.is_module and members is None and member.is_alias:
            continue
        if member.is_function:
            out += _missing(member, f"{path}.{name}")
        elif obj.is_module and member.is_class:
            out += _check(package, f"{path}.{name}", None)
    return out


def test_api_reference_has_args_and_returns():
    package = griffe.load("bioik", search_paths=[str(ROOT / "src")], allow_inspection=False, docstring_parser="google")
    problems = [p for path, members in _directives() for p in _check(package, path, members)]
    assert not problems, "\n".join(problems)
