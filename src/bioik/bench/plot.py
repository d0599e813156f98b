"""Cumulative solve-rate plots [E Fig. 6.1]: % of targets solved within a time (log-x) and
within a number of solution-callback calls ([E 6], see `report`), one curve per solver,
one figure per (robot, test, timeout, targets, seed, seed mode), written as PNG and SVG.
An experiment run without a callback has no call counts: its curve on the right is over
the solver's own iterations instead, dashed and marked so in the legend.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from bioik.bench.report import GroupKey, experiment_label, group_key, group_title
from bioik.bench.store import BenchError, ResultStore


def _cumulative(values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Step-curve points: after the k-th smallest value, k/n·100 % are solved."""
    xs = np.sort(values)
    return xs, 100.0 * np.arange(1, len(xs) + 1) / n


def _file_word(name: str) -> str:
    """`name` (a robot name may be a URDF path, a test scene:NAME/SET) as part of a file name:
    characters other than letters, digits, '-' and '.' become '_'."""
    return re.sub(r"[^\w.-]+", "_", name)


def plot(store: ResultStore, out_dir: str | os.PathLike) -> list[Path]:
    """Write the plots of every experiment group in `store` to `out_dir`.

    Args:
        store: the results database.
        out_dir: the folder for the PNG and SVG files.

    Returns:
        The files written.
    """
    try:
        import matplotlib
    except ImportError:
        raise BenchError("plots need matplotlib: pip install 'bioik[bench]' (or pip install 'matplotlib>=3.7')") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    groups: dict[GroupKey, list] = {}
    for exp in store.experiments():
        groups.setdefault(group_key(exp), []).append(exp)
    written = []
    for key, exps in groups.items():
        robot, tip, test, timeout, n, seed, _ = key
        seed_mode = exps[0].seed_mode
        fig, (ax_t, ax_i) = plt.subplots(1, 2, figsize=(11, 4.2))
        for exp in exps:
            rows = [r for r in store.results(exp.id) if r.solved]
            xs, ys = _cumulative(np.array([r.time_s * 1e3 for r in rows]), n)
            ax_t.step(xs, ys, where="post", label=experiment_label(exp))
            if exp.callback:
                xs, ys = _cumulative(np.array([max(r.callback_calls, 1) for r in rows], dtype=float), n)
                ax_i.step(xs, ys, where="post", label=experiment_label(exp))
            else:
                xs, ys = _cumulative(np.array([max(r.iterations, 1) for r in rows], dtype=float), n)
                ax_i.step(xs, ys, where="post", linestyle="--", label=f"{experiment_label(exp)} (solver iterations, no callback)")
        for ax, xlabel in ((ax_t, "time (ms)"), (ax_i, "solution-callback calls")):
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel(xlabel)
            ax.set_ylabel("solved (%)")
            ax.set_ylim(0, 100)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(loc="upper left", fontsize="small")
        ax_t.axvline(timeout * 1e3, color="grey", linestyle="--", linewidth=0.8)
        fig.suptitle(group_title(key))
        fig.tight_layout()
        stem = f"{_file_word(robot)}_{_file_word(tip)}_{_file_word(test)}_{timeout * 1e3:g}ms_{n}_s{seed}"
        stem += "" if seed_mode == "random" else f"_{seed_mode}"
        if exps[0].seed_config is not None:  # fixed at a given configuration: one file per configuration
            stem += f"_{len(written) // 2}"
        for ext in ("png", "svg"):
            path = out / f"{stem}.{ext}"
            fig.savefig(path, dpi=120)
            written.append(path)
        plt.close(fig)
    return written
