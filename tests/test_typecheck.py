"""bioik's public names are visible to type checkers: mypy finds no error in a script that
uses every name of `bioik.__all__` (tests/typecheck/user_script.py; a name added to
`__all__` must be used there too), and reports a misspelt name instead of taking it for
Any (the lazy `__getattr__` is hidden from type checkers).

mypy reads this checkout's sources (not an installed bioik), follows bioik's imports
silently (their own errors are not this test's) and keeps its cache in pytest's cache
folder: about 6 s cold, under 1 s warm.
"""

import ast
from pathlib import Path

import pytest

import bioik

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "typecheck" / "user_script.py"


def _mypy(script: Path, tmp_path: Path, cache: Path) -> tuple[str, int]:
    """mypy's report on `script` and its exit status (0: no error)."""
    mypy_api = pytest.importorskip("mypy.api", reason="mypy is not installed: pip install -e '.[test]'")
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\nmypy_path = {ROOT / 'src'}\n")
    # numba, coal, trimesh and others ship no type information: their names are Any
    out, err, status = mypy_api.run([
        "--config-file", str(config), "--cache-dir", str(cache), "--follow-imports=silent", "--ignore-missing-imports",
        "--no-error-summary", "--hide-error-context", str(script),
    ])
    assert not err, err
    return out, status


@pytest.fixture
def cache(pytestconfig, tmp_path_factory) -> Path:
    """mypy's cache, kept between runs in pytest's cache folder (a temporary one when
    pytest runs without its cache, `-p no:cacheprovider`)."""
    store = getattr(pytestconfig, "cache", None)
    return store.mkdir("mypy") if store is not None else tmp_path_factory.mktemp("mypy")


def test_the_script_uses_every_public_name():
    used = {node.attr for node in ast.walk(ast.parse(SCRIPT.read_text()))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "bioik"}
    assert sorted(set(bioik.__all__) - used) == []


def test_a_script_using_every_public_name_type_checks(tmp_path, cache):
    out, status = _mypy(SCRIPT, tmp_path, cache)
    assert status == 0, out


def test_a_misspelt_public_name_is_an_error(tmp_path, cache):
    script = tmp_path / "misspelt.py"
    script.write_text("import numpy as np\n\nimport bioik\n\n"
                      "bioik.PoseGaol('tool0', np.eye(4))\n"
                      "bioik.CollisionCheker\n")  # a name `bioik.__getattr__` imports on first use, misspelt
    out, status = _mypy(script, tmp_path, cache)
    assert status == 1
    assert 'has no attribute "PoseGaol"' in out, out
    assert 'has no attribute "CollisionCheker"' in out, out
