"""The package's main job on its embedded default, without R: ``python -m locacal.demo``.

Simulates over-confident scores from the 2024 slides' logistic process (gamma = 3), prints their
calibration report next to that of the true probabilities, and writes a reliability diagram
(PNG) and the curve and report tables (CSV) to the output folder.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

from locacal import simulate
from locacal.curves import calibration_curve
from locacal.report.table import calibration_report


def run(out_dir: Path, n_obs: int = 20_000, seed: int = 2024) -> dict[str, Path]:
    """Run the demonstration; return the paths of the files written."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from locacal.plotting import plot_curve, plot_score_histogram

    out_dir.mkdir(parents=True, exist_ok=True)
    data = simulate.logistic_dgp(n_obs, gamma=3.0, seed=seed)
    scores, labels, true_p = data["score"], data["label"], data["true_p"]

    report = calibration_report({"scores (gamma = 3)": scores, "true probabilities": true_p},
                                labels, true_p=true_p)
    local = calibration_curve(scores, labels)  # local-linear, tricube, nn = 0.15
    binned = calibration_curve(scores, labels, method="binning", strategy="quantile", bins=10)

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 7.5), height_ratios=[3, 1],
                                      sharex=True)
    plot_curve(local, ax=top, label="local linear (nn = 0.15)")
    plot_curve(binned, ax=top, band=False, label="10 quantile bins")
    top.set_title("Over-confident scores (slides' DGP, gamma = 3)")
    plot_score_histogram(scores, labels, ax=bottom)
    fig.tight_layout()
    paths = {
        "diagram": out_dir / "reliability_diagram.png",
        "curve": out_dir / "calibration_curve.csv",
        "report": out_dir / "calibration_report.csv",
    }
    fig.savefig(paths["diagram"], dpi=120)
    plt.close(fig)
    local.to_frame().to_csv(paths["curve"], index=False)
    report.to_csv(paths["report"], index=False)

    print(report.set_index("model").T.to_string(float_format=lambda v: f"{v:.4f}"))
    for name, path in paths.items():
        print(f"{name}: {path}")
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m locacal.demo", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("demo_output"),
                        help="folder for the PNG and CSV files (default: demo_output)")
    parser.add_argument("--n", type=int, default=20_000, help="number of observations")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    run(args.out, n_obs=args.n, seed=args.seed)


if __name__ == "__main__":
    main()
