"""`bioik bench plot DB --config plot.toml`: figures chosen and drawn as a plot file says
([E 5]'s plot files: robots, scenarios, solvers, labels, colours, styles, trials)."""

from __future__ import annotations

import numpy as np
import pytest

import bioik
from bioik.bench import BenchError, ResultStore
from bioik.bench.plot_config import _curves, read_config
from bioik.bench.runner import run_experiment
from bioik.cli import main

pytest.importorskip("matplotlib")

CONFIG = """
[[figure]]
name = "ur5_both"
robot = "ur5"
tests = ["fkik"]
solvers = ["lm", "kdl"]
labels = ["LM", "KDL"]
colors = ["tab:blue", "tab:red"]
styles = ["solid", "dotted"]
kinds = ["rates", "time", "attempts"]
x_scale = "linear"
x_max_ms = 2
trials = 2
formats = ["png", "pdf"]
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("plots") / "r.db"
    robot = bioik.load_robot("ur5")
    with ResultStore(path, create=True) as store:
        for seed in (7, 8):  # two trials of lm
            run_experiment(store, robot, "ur5", "fkik", "lm", 6, 0.005, seed=seed)
        run_experiment(store, robot, "ur5", "fkik", "kdl", 6, 0.005, seed=7)
    return path


def test_a_plot_file_writes_its_figures_in_its_formats(db, tmp_path, capsys):
    (tmp_path / "plot.toml").write_text(CONFIG)
    assert main(["bench", "plot", str(db), "--out", str(tmp_path / "out"), "--config", str(tmp_path / "plot.toml")]) == 0
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["ur5_both.pdf", "ur5_both.png"]
    assert (tmp_path / "out" / "ur5_both.png").stat().st_size > 5000


def test_curves_are_the_share_of_targets_solved_within_each_point(db):
    with ResultStore(db) as store:
        runs = [e for e in store.experiments() if e.solver == "lm"]
        grid = np.array([0.0, 1e9])
        Y = _curves(runs, store, lambda r: r.time_s, grid)
        for exp, y in zip(runs, Y):
            solved = sum(r.solved for r in store.results(exp.id))
            assert y.tolist() == [0.0, 100.0 * solved / exp.n_targets]


@pytest.mark.parametrize("text,match", [
    ("[[figure]]\nkinds = ['bars']\n", "kinds .'bars'.; expected a list of rates, time, attempts"),
    ("[[figure]]\nsolvers = ['lm']\nlabels = ['a', 'b']\n", "labels must be a list as long as solvers"),
    ("[[figure]]\ncolour = 'red'\n", "unknown key 'colour'"),
    ("title = 'x'\n", r"expected one or more \[\[figure\]\] tables"),
    ("[[figure]]\ntrials = 0\n", "trials 0; expected a whole number"),
])
def test_a_bad_plot_file_is_named(tmp_path, text, match):
    (tmp_path / "p.toml").write_text(text)
    with pytest.raises(BenchError, match=match):
        read_config(tmp_path / "p.toml")


def test_a_figure_with_no_experiment_says_what_the_database_holds(db, tmp_path):
    from bioik.bench.plot_config import plot_configured

    (tmp_path / "p.toml").write_text("[[figure]]\nrobot = 'panda'\n")
    with ResultStore(db) as store, pytest.raises(BenchError, match=r"no experiment of robot 'panda'.*\('ur5', 'fkik'\)"):
        plot_configured(store, tmp_path / "p.toml", tmp_path / "out")
