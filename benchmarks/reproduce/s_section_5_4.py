"""[S 5.4.3–5.4.6]: what each component of HGSA is worth — `bio1` with one switched off.

[S] runs each variant for 1/30 s on 10,000 random reachable UR5 poses, every solve from the
default posture, and plots the mean error over time: removing weight randomisation,
adoption, exploitation or the wipe criterion each loses efficiency. Here the same protocol
(1/30 s, from the middle of the joint limits, which is the bundled ur5's default posture),
reported as the success rate at [S]'s accuracy (1e-3 m / 1e-2 rad) and the mean position
and rotation error left at the end; the same direction as [S] means every ablation is
worse than the full algorithm.

Usage: python3 benchmarks/reproduce/s_section_5_4.py [--targets 1000] [--db …] [--results …]
"""

from __future__ import annotations

from pathlib import Path

from common import DB, RESULTS, Protocol, arguments, compare, publish, rate_cell, run

#: The variants: label, the switch turned off (None: the full algorithm), [S]'s section.
VARIANTS = [("full HGSA", None, "—"), ("no weight randomisation (w = ½)", "random_weights", "5.4.3, Fig. 5.11"),
            ("no adoption", "adoption", "5.4.4, Fig. 5.13"), ("no exploitation", "exploitation", "5.4.5, Fig. 5.15"),
            ("no wipe criterion", "wipes", "5.4.6, Fig. 5.17")]


def main(targets: int = 1000, db: Path = DB, results: Path = RESULTS) -> str:
    rows = []
    full = None
    for label, switch, section in VARIANTS:
        params = () if switch is None else ((switch, 0),)
        o = run(Protocol("ur5", "bio1", targets, timeout=1 / 30, position_tolerance=1e-3, rotation_tolerance=1e-2,
                         start="centre", params=params), db, f"S 5.4 {label}")
        full = o if full is None else full
        versus = "—" if o is full else compare(o, full)
        rows.append([label, section, rate_cell(o), f"{1e3 * o.position_error.mean():.2f} mm",
                     f"{o.rotation_error.mean():.4f} rad", versus])
    return publish("S-5.4", "[S 5.4] Component ablations of HGSA",
        "ur5, 1/30 s per solve from the default posture, success at 1e-3 m / 1e-2 rad [95 % interval], mean "
        "errors left; [S] reports a loss of efficiency for each removal (figures, no table). "
        f"`python3 benchmarks/reproduce/s_section_5_4.py --targets {targets}`.",
        ["Variant", "[S]", "success", "mean position error", "mean rotation error", "success vs full"], rows, results)


if __name__ == "__main__":
    print(main(**vars(arguments(__doc__, 1000))))
