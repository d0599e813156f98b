"""Seeded results stay bit-identical across refactors: 308 solves over 14 solvers, three
arms and four goal structures against digests recorded before (see `seeded_solves.py`)."""

import pytest

from seeded_solves import cpu_key, recorded, run


def test_seeded_solves_are_bit_identical_to_the_record():
    expected = recorded()
    if expected is None:
        pytest.skip(f"no digests recorded for this CPU ({cpu_key()}); see tests/seeded_solves.py")
    got = run()
    assert len(got) >= 300
    changed = sorted(name for name in expected if got.get(name) != expected[name])
    assert not changed, f"{len(changed)} of {len(expected)} seeded solves changed, e.g. {changed[:8]}"
