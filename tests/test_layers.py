"""The package's layers: every import of a bioik module (at module level or inside a
function, TYPE_CHECKING ones included) goes to the same or a lower layer, and no bioik
modules import each other in a circle.

Layers, lowest first: errors, `_kernel_cache`, `_cache_dir` and `_compile_progress` (import nothing from bioik) < model <
kinematics < robots (the bundled catalog and the robot loader) < scene (obstacles and
their signed distances) < scenes (the bundled benchmark scenarios, built from scene) <
collision (the robot's collision model: spheres, allowed pairs, exact checks) < goals < problem (the compiled problem) < solvers (core < local < evolutionary < scipy < registry < result, batch, workspace < the paths
and the problem cache < api) <
track, rollout, decoupling, passage_solver, moveit (and moveit_config) < the `bioik` package itself (the public API, re-exporting the
layers below) < bench and viewer < cli. A module's layer is that of its subpackage (or of itself, for
a top-level module); the `bioik/__init__.py` facade has its own layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "src" / "bioik"

#: Layer of each subpackage or top-level module of bioik (a higher number may import a lower).
LAYERS = {
    "bioik.errors": 0,
    "bioik._kernel_cache": 0,
    "bioik._cache_dir": 0,
    "bioik._compile_progress": 0,
    "bioik.model": 1,
    "bioik.kinematics": 2,
    "bioik.robots": 3,
    "bioik.scene": 4,
    "bioik.scenes": 5,
    "bioik.collision": 6,
    "bioik.goals": 7,
    "bioik.problem": 8,
    "bioik.solvers": 9,
    "bioik.track": 10,
    "bioik.rollout": 10,
    "bioik.moveit": 10,
    "bioik.moveit_config": 10,
    "bioik.moveit_package": 10,
    "bioik.decoupling": 10,
    "bioik.passage_solver": 10,
    "bioik": 11,
    "bioik.bench": 12,
    "bioik.viewer": 12,
    "bioik.cli": 13,
}

#: Inside bioik.solvers: shared plumbing < the families (a family may build on a lower
#: one: bio2 on lm's pose attempt, trac on kdl, bio2_lbfgs on bio2) < the registry < the result
#: and input checks, the batch input, result and threads, the workspaces < the Solver's parts
#: (the problem cache, the one-call and general paths, the scene's goals) < the API.
SOLVER_LAYERS = {
    "bioik.solvers.core": 0,
    "bioik.solvers.local": 1,
    "bioik.solvers.evolutionary": 2,
    "bioik.solvers.neural": 2,
    "bioik.solvers.scipy": 3,
    "bioik.solvers.registry": 4,
    "bioik.solvers.result": 5,
    "bioik.solvers.batch": 5,
    "bioik.solvers.workspace": 5,
    "bioik.solvers.prepared": 6,
    "bioik.solvers.one_call": 6,
    "bioik.solvers.search": 6,
    "bioik.solvers.scene_goals": 6,
    "bioik.solvers.api": 7,
    "bioik.solvers": 8,
}


def _modules() -> dict[str, Path]:
    """Every module of bioik by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, int]]:
    """(imported bioik module, line) for every import statement anywhere in the module.

    `from a.b import c` imports a.b.c if that is a module, else a.b. Importing a module
    also runs its enclosing packages' __init__, so those count too, except the importer's
    own ancestors (already initialised when it runs) and the root package (implied by
    every import, listed only when imported by name).
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for a in node.names:
                full = f"{base}.{a.name}"
                targets.append((full if full in MODULES else base, node.lineno))
    out = []
    for target, line in targets:
        if target != "bioik" and not target.startswith("bioik."):
            continue
        parts = target.split(".")
        implied = [".".join(parts[:i]) for i in range(2, len(parts))]
        for t in [p for p in implied if not (name + ".").startswith(p + ".")] + [target]:
            if t in MODULES and t != name:
                out.append((t, line))
    return list(dict.fromkeys(out))


def _unit(name: str) -> str:
    """The subpackage or top-level module that `name` belongs to (`bioik` for the facade)."""
    return ".".join(name.split(".")[:2])


def _graph() -> dict[str, list[tuple[str, int]]]:
    return {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), as sorted lists."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _where(graph, a: str, b_unit: str | None = None, b: str | None = None) -> list[str]:
    return [f"{MODULES[a].relative_to(ROOT.parent)}:{line} imports {t}" for t, line in graph[a]
            if (b is None or t == b) and (b_unit is None or _unit(t) == b_unit)]


def test_every_module_has_a_layer():
    missing = sorted({_unit(m) for m in MODULES} - set(LAYERS))
    assert not missing, f"modules without a layer in tests/test_layers.py LAYERS: {', '.join(missing)}"


def test_no_module_imports_a_higher_layer():
    graph = _graph()
    bad = [f"{MODULES[m].relative_to(ROOT.parent)}:{line}: {m} (layer {LAYERS[_unit(m)]}) imports {t} (layer {LAYERS[_unit(t)]})"
           for m, imports in graph.items() for t, line in imports if LAYERS[_unit(t)] > LAYERS[_unit(m)]]
    assert not bad, "imports of a higher layer:\n" + "\n".join(bad)


def test_solver_modules_keep_their_order():
    def layer(m: str) -> int:
        return SOLVER_LAYERS[".".join(m.split(".")[:3])]

    graph = _graph()
    inside = [m for m in graph if m.startswith("bioik.solvers")]
    missing = sorted({".".join(m.split(".")[:3]) for m in inside} - set(SOLVER_LAYERS))
    assert not missing, f"solver modules without a layer in SOLVER_LAYERS: {', '.join(missing)}"
    bad = [f"{MODULES[m].relative_to(ROOT.parent)}:{line}: {m} imports {t}" for m in inside for t, line in graph[m]
           if t.startswith("bioik.solvers") and layer(t) > layer(m)]
    assert not bad, "imports of a higher layer inside bioik.solvers:\n" + "\n".join(bad)


def test_no_import_cycles_between_modules():
    graph = _graph()
    cycles = _cycles({m: {t for t, _ in imports} for m, imports in graph.items()})
    msgs = [" ↔ ".join(c) + ":\n  " + "\n  ".join(w for a in c for b in c for w in _where(graph, a, b=b)) for c in cycles]
    assert not cycles, "import cycles between modules:\n" + "\n".join(msgs)


def test_no_import_cycles_between_subpackages():
    graph = _graph()
    edges: dict[str, set[str]] = {}
    for m, imports in graph.items():
        for t, _ in imports:
            if _unit(t) != _unit(m):
                edges.setdefault(_unit(m), set()).add(_unit(t))
    cycles = _cycles(edges)
    msgs = [" ↔ ".join(c) + ":\n  " + "\n  ".join(w for a in graph for b in c if _unit(a) in c and _unit(a) != b
                                                   for w in _where(graph, a, b_unit=b)) for c in cycles]
    assert not cycles, "import cycles between subpackages:\n" + "\n".join(msgs)


def test_the_checks_see_function_level_imports():
    """The graph includes imports inside functions (a lazy import is still a dependency)."""
    graph = _graph()
    lazy = [t for t, _ in graph["bioik.bench.cli"] if t == "bioik.bench.distributed"]
    assert lazy, "bench.cli imports bioik.bench.distributed inside a function only; the graph must list it"
