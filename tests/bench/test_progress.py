"""The long commands' progress bar: rate and ETA on a terminal, silent in logs and pipes."""

import io
import sys

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
