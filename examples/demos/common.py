"""What the demos share: their command line, saving a figure, and the table they print."""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no window
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

DEFAULT_OUT = Path(__file__).resolve().parent / "out"


def arguments(description: str, solvers: tuple[str, ...] = ()) -> argparse.Namespace:
    """--out DIR (where the PNGs go), --quick (a few steps: for tests, not for reading) and,
    when `solvers` are given, --solver NAME (repeatable; default: those)."""
    parser = argparse.ArgumentParser(description=description)
    if solvers:
        parser.add_argument("--solver", action="append", dest="solvers", help=f"solver to run (repeatable; default {' '.join(solvers)})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"folder for the PNG pictures (default {DEFAULT_OUT})")
    parser.add_argument("--quick", action="store_true", help="a small budget: few steps, for tests")
    args = parser.parse_args()
    if solvers and not args.solvers:
        args.solvers = list(solvers)
    args.out.mkdir(parents=True, exist_ok=True)
    return args


def save(fig: plt.Figure, out: Path, name: str) -> Path:
    """Write `fig` as out/name.png (small enough to commit) and close it."""
    path = out / f"{name}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)
    print(f"picture: {path}")
    return path


def table(title: str, rows: list[tuple[str, str]]) -> None:
    """Print the demo's figures as `label | value` lines under a title."""
    print(title)
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}} | {value}")
