"""Configured benchmark figures (`bioik bench plot DB --config plot.toml`), as [E 5]'s plot files.

A TOML file lists figures; each picks experiments of one robot, one column of panels per
test (scenario), one curve per solver, and says how to draw them:

```toml
[[figure]]
name = "ur10_scenes"               # the file name (default: figure1, figure2 …)
robot = "ur10"                     # experiments of this robot (default: any)
tests = ["fkik", "scene:SmallTable"]   # one column each, in this order (default: every test)
solvers = ["lm", "kdl", "bio2_lm"]     # curves, in this order (default: every solver)
labels = ["LM", "KDL", "BioIK 2 + LM"] # legend labels (default: the solver names)
colors = ["C0", "C1", "C2"]            # matplotlib colours (default: the colour cycle)
styles = ["solid", "dotted", "solid"]  # line styles (default: solid)
kinds = ["rates", "time"]          # rows: "rates" (bars at the timeout), "time" (% solved
                                   # within a time), "attempts" (% within n callback calls)
x_scale = "log"                    # "log" or "linear" for the time and attempts axes
x_max_ms = 50                      # cut the time axis here (default: the timeout)
trials = 3                         # the last n runs of each solver: their mean, min and max
formats = ["png", "svg"]           # any format matplotlib writes
```

With `trials` > 1, the experiments of one (robot, test, solver) — runs with other seeds — are
the trials: a curve is their mean, its band their minimum and maximum, as [E 5] draws them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bioik.bench.store import BenchError, Experiment, ResultStore

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

KINDS = ("rates", "time", "attempts")
KEYS = {"name", "robot", "tests", "solvers", "labels", "colors", "styles", "kinds", "x_scale", "x_max_ms", "trials", "formats"}


def read_config(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The figures of a plot file, checked (BenchError naming the file, figure and key)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except OSError as e:
        raise BenchError(f"plot config {str(path)!r} cannot be read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise BenchError(f"plot config {path}: not valid TOML: {e}") from None
    figures = data.get("figure")
    if not isinstance(figures, list) or not figures or set(data) - {"figure"}:
        raise BenchError(f"plot config {path}: expected one or more [[figure]] tables and nothing else")
    out = []
    for k, fig in enumerate(figures, 1):
        where = f"plot config {path}, figure {k}"
        unknown = sorted(set(fig) - KEYS)
        if unknown:
            raise BenchError(f"{where}: unknown key {unknown[0]!r}; expected {', '.join(sorted(KEYS))}")
        kinds = fig.get("kinds", ["time", "attempts"])
        if not isinstance(kinds, list) or not kinds or any(x not in KINDS for x in kinds):
            raise BenchError(f"{where}: kinds {kinds!r}; expected a list of {', '.join(KINDS)}")
        if fig.get("x_scale", "log") not in ("log", "linear"):
            raise BenchError(f"{where}: x_scale {fig['x_scale']!r}; expected 'log' or 'linear'")
        trials = fig.get("trials", 1)
        if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
            raise BenchError(f"{where}: trials {trials!r}; expected a whole number ≥ 1")
        x_max = fig.get("x_max_ms")
        if x_max is not None and (isinstance(x_max, bool) or not isinstance(x_max, (int, float)) or not x_max > 0):
            raise BenchError(f"{where}: x_max_ms {x_max!r}; expected a number > 0")
        solvers = fig.get("solvers")
        for key in ("labels", "colors", "styles"):
            if key in fig and (solvers is None or not isinstance(fig[key], list) or len(fig[key]) != len(solvers)):
                raise BenchError(f"{where}: {key} must be a list as long as solvers")
        out.append({**fig, "name": str(fig.get("name", f"figure{k}")), "kinds": kinds, "trials": trials})
    return out


def plot_configured(store: ResultStore, config: str | os.PathLike, out_dir: str | os.PathLike) -> list[Path]:
    """Write the figures of a plot file from the experiments in `store`.

    Args:
        store: the results database.
        config: the TOML plot file (see the module docstring).
        out_dir: the folder for the files.

    Returns:
        The files written.
    """
    try:
        import matplotlib
    except ImportError:
        raise BenchError("plots need matplotlib: pip install 'bioik[bench]' (or pip install 'matplotlib>=3.7')") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    experiments = store.experiments()
    written = []
    for fig_spec in read_config(config):
        chosen = [e for e in experiments if fig_spec.get("robot") in (None, e.robot)]
        tests = fig_spec.get("tests") or sorted({e.test for e in chosen})
        solvers = fig_spec.get("solvers") or sorted({e.solver for e in chosen})
        if not chosen or not set(tests) & {e.test for e in chosen}:
            raise BenchError(f"figure {fig_spec['name']!r}: no experiment of robot {fig_spec.get('robot')!r} on tests {tests}; "
                             f"the database holds {sorted({(e.robot, e.test) for e in experiments})}")
        kinds = fig_spec["kinds"]
        fig, axes = plt.subplots(len(kinds), len(tests), figsize=(4.6 * len(tests), 3.4 * len(kinds)), squeeze=False)
        for col, test in enumerate(tests):
            for i, solver in enumerate(solvers):
                runs = sorted((e for e in chosen if e.test == test and e.solver == solver), key=lambda e: e.id)[-fig_spec["trials"]:]
                if not runs:
                    continue
                style = _style(fig_spec, i, solver)
                for row, kind in enumerate(kinds):
                    _draw(axes[row, col], kind, runs, store, style, i, len(solvers), fig_spec)
            for row, kind in enumerate(kinds):
                _axes(axes[row, col], kind, test, solvers, fig_spec)
        fig.tight_layout()
        for ext in fig_spec.get("formats", ["png", "svg"]):
            path = out / f"{fig_spec['name']}.{ext}"
            try:
                fig.savefig(path, dpi=120)
            except ValueError as e:
                raise BenchError(f"figure {fig_spec['name']!r}: cannot write format {ext!r}: {e}") from None
            written.append(path)
        plt.close(fig)
    return written


def _style(spec: Mapping[str, Any], i: int, solver: str) -> dict[str, Any]:
    labels, colors, styles = spec.get("labels"), spec.get("colors"), spec.get("styles")
    return {"label": labels[i] if labels else solver, "color": colors[i] if colors else f"C{i % 10}",
            "linestyle": styles[i] if styles else "solid"}


def _curves(runs: list[Experiment], store: ResultStore, value, grid: np.ndarray) -> np.ndarray:
    """(trials, len(grid)) % of targets solved with `value(row)` ≤ each grid point."""
    out = []
    for exp in runs:
        v = np.sort([value(r) for r in store.results(exp.id) if r.solved])
        out.append(100.0 * np.searchsorted(v, grid, side="right") / max(exp.n_targets, 1))
    return np.array(out)


def _draw(ax, kind: str, runs: list[Experiment], store: ResultStore, style: dict, i: int, count: int, spec) -> None:
    if kind == "rates":
        rates = _curves(runs, store, lambda r: 0.0, np.zeros(1))[:, 0]
        width = 0.8 / count
        ax.bar(i * width, rates.mean(), width, color=style["color"], label=style["label"],
               yerr=[[rates.mean() - rates.min()], [rates.max() - rates.mean()]] if len(rates) > 1 else None)
        return
    if kind == "time":
        top = spec.get("x_max_ms") or max(e.timeout for e in runs) * 1e3
        grid = np.geomspace(1e-3, top, 400) if spec.get("x_scale", "log") == "log" else np.linspace(0, top, 400)
        Y = _curves(runs, store, lambda r: r.time_s * 1e3, grid)
    else:
        grid = np.unique(np.geomspace(1, 1000, 200).round())
        Y = _curves(runs, store, lambda r: max(r.callback_calls if runs[0].callback else r.iterations, 1), grid)
    ax.step(grid, Y.mean(axis=0), where="post", color=style["color"], linestyle=style["linestyle"], label=style["label"])
    if len(Y) > 1:
        ax.fill_between(grid, Y.min(axis=0), Y.max(axis=0), step="post", color=style["color"], alpha=0.15)


def _axes(ax, kind: str, test: str, solvers: list[str], spec) -> None:
    ax.set_title(test, fontsize="medium")
    ax.set_ylim(0, 100)
    ax.set_ylabel("solved (%)")
    ax.grid(True, alpha=0.3)
    if kind == "rates":
        ax.set_xticks([])
        ax.set_xlabel("at the timeout")
    else:
        ax.set_xscale(spec.get("x_scale", "log"))
        ax.set_xlabel("time (ms)" if kind == "time" else "solution-callback calls (iterations without a callback)")
    ax.legend(loc="lower right", fontsize="small")
