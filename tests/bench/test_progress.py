"""The long commands' progress bar: rate and ETA on a terminal, silent in logs and pipes."""

import io
import sys

import pytest

from bioik.bench.progress import progress_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_count_rate_and_eta(monkeypatch):
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    bar = progress_bar("ur5/fkik/lm", 10, done=4)
    bar.update(3)
    bar.close()
    text = out.getvalue()
    assert "ur5/fkik/lm" in text and "7/10" in text and "target/s" in text and "<" in text  # elapsed<remaining


def test_a_pipe_or_log_gets_nothing(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    bar = progress_bar("reach", 5, unit="point")
    bar.update(5)
    bar.close()
    assert out.getvalue() == ""


def test_tune_counts_its_trials_on_a_terminal_with_its_lines_above(monkeypatch, tmp_path):
    pytest.importorskip("optuna")
    from bioik.bench.tune import tune

    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    tune(str(tmp_path / "t.db"), "ur5", "fkik", "lm", 2, n_targets=3, timeout=0.005)
    text = out.getvalue()
    assert "tune ur5-fkik-lm" in text and "2/2" in text and ("trial/s" in text or "s/trial" in text) and "best" in text
    assert "trial 1 [2/2]" in text  # the per-trial lines stay
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    tune(str(tmp_path / "t.db"), "ur5", "fkik", "lm", 3, n_targets=3, timeout=0.005)
    assert "trial 2 [3/3]" in pipe.getvalue() and "tune ur5-fkik-lm" not in pipe.getvalue()  # lines, no bar
