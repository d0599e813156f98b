"""The compile notice: what is compiling, how far, and how long it took."""

import logging
import time

from numba import njit

from bioik import _compile_progress


def test_notice_names_the_work_counts_kernels_and_says_when_ready(monkeypatch, caplog):
    monkeypatch.setattr(_compile_progress, "NOTICE_AFTER", 0.0)
    monkeypatch.setattr(_compile_progress, "PROGRESS_EVERY", 0.01)

    @njit  # a new function: numba compiles it here (no disk cache)
    def twice(x):
        return 2.0 * x

    with caplog.at_level(logging.WARNING, logger="bioik"), _compile_progress.compile_notice("the test kernels"):
        assert twice(1.5) == 3.0
        time.sleep(0.1)  # progress lines come while the block runs
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("bioik: compiling the test kernels for this CPU")
    assert any("bioik: compiling the test kernels:" in m and "1 kernel compiled" in m for m in lines[1:-1])
    assert lines[-1].startswith("bioik: the test kernels ready after") and lines[-1].endswith("(1 kernel compiled)")


def test_a_quick_block_says_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger="bioik"), _compile_progress.compile_notice("the test kernels"):
        pass
    assert not caplog.records


def test_a_step_of_a_longer_command_is_named_in_the_notices(monkeypatch, caplog):
    monkeypatch.setattr(_compile_progress, "NOTICE_AFTER", 0.0)

    @njit
    def thrice(x):
        return 3.0 * x

    with caplog.at_level(logging.WARNING, logger="bioik"), _compile_progress.compile_step("solver 2 of 3"):
        with _compile_progress.compile_notice("the test kernels"):
            assert thrice(1.0) == 3.0
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("bioik: compiling the test kernels (solver 2 of 3) for this CPU")
    assert lines[-1].startswith("bioik: the test kernels (solver 2 of 3) ready after")
    with caplog.at_level(logging.WARNING, logger="bioik"), _compile_progress.compile_notice("the test kernels"):
        time.sleep(0.01)
    assert "solver 2 of 3" not in caplog.records[-1].getMessage()  # the step ends with its block
