"""Accuracy of ``decision_curve``: net benefit and miscalibration loss against their
population values, and twice the integral of the elementary MCB against the population MCB.

Data-generating processes (DGPs): scores s ~ Beta(2, 5) (mean 0.29, a clinical-looking risk
distribution) and events D | s ~ Bernoulli(g(s)) with g(s) = expit(a + b logit(s)):

* ``calibrated``     a = 0,   b = 1   (g = id: the population loss is 0 at every t);
* ``overconfident``  a = 0,   b = 0.6 (scores too extreme, the usual overfitted model);
* ``underpredicting`` a = 0.7, b = 1  (scores too low, a model moved to a riskier population).

Estimands, per threshold t (population, per patient; f the Beta(2, 5) density):

* NB_s(t) = int_t^1 [g(u) - (1 - g(u)) t / (1 - t)] f(u) du, the net benefit of "treat if
  s >= t";
* loss(t) = NB_g(t) - NB_s(t) >= 0, with NB_g the net benefit of "treat if g(s) >= t", i.e.
  s >= g^{-1}(t) (g is increasing, so g is the population isotonic recalibration);
* MCB = E[(s - g(s))^2] (CORP's miscalibration of the Brier score in the population).

Printed per DGP, n and t: the true value, the bias of the estimate with its Monte Carlo
standard error (sd / sqrt(reps)) and the RMSE, for NB and for the loss; and per DGP and n the
bias of 2 * int elementary_mcb dt (computed exactly as CORP's MCB, which equals it; the
identity is tested in tests/test_decision.py) against the population MCB. The PAV fit is
judged on the data it was fitted on, so the loss is biased upwards where the truth is 0; the
bias shrinks with n. Nothing is asserted.

Usage: ``python benchmarks/accuracy_decision.py [--reps 1000] [--quick]``
(``--quick``: 100 replicates, n = 500 and 2000 only).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
from scipy import integrate, stats
from scipy.special import expit, logit

from locacal import corp_decomposition, decision_curve

#: Thresholds of the study (the clinically used low-to-moderate range).
THRESHOLDS = np.array([0.05, 0.1, 0.2, 0.3, 0.5])
SCORE_DISTRIBUTION = stats.beta(2.0, 5.0)


@dataclass(frozen=True)
class DGP:
    """g(s) = expit(a + b logit(s)) on Beta(2, 5) scores."""

    name: str
    a: float
    b: float

    def g(self, s: np.ndarray | float) -> np.ndarray | float:
        return expit(self.a + self.b * logit(np.clip(s, 1e-300, 1 - 1e-16)))

    def g_inverse(self, t: float) -> float:
        return float(expit((logit(t) - self.a) / self.b))

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        s = SCORE_DISTRIBUTION.rvs(size=n, random_state=rng)
        y = (rng.uniform(size=n) < self.g(s)).astype(float)
        return s, y

    def net_benefit(self, t: float, cutoff: float) -> float:
        """Population net benefit of "treat if s >= cutoff" at threshold t."""
        odds = t / (1 - t)
        value, _ = integrate.quad(
            lambda u: (self.g(u) - (1 - self.g(u)) * odds) * SCORE_DISTRIBUTION.pdf(u),
            cutoff, 1.0, epsabs=1e-13, epsrel=1e-12, limit=200)
        return value

    def truth(self, t: float) -> tuple[float, float]:
        """(NB_s(t), loss(t))."""
        nb = self.net_benefit(t, t)
        return nb, self.net_benefit(t, self.g_inverse(t)) - nb

    def mcb(self) -> float:
        value, _ = integrate.quad(lambda u: (u - self.g(u)) ** 2 * SCORE_DISTRIBUTION.pdf(u),
                                  0.0, 1.0, epsabs=1e-14, epsrel=1e-12, limit=200)
        return value


DGPS = (DGP("calibrated", 0.0, 1.0), DGP("overconfident", 0.0, 0.6),
        DGP("underpredicting", 0.7, 1.0))


def replicate(dgp: DGP, n: int, reps: int, seed: int) -> dict[str, np.ndarray]:
    """Estimated NB, loss (reps x thresholds) and MCB (reps) over ``reps`` samples."""
    rng = np.random.default_rng(seed)
    nb = np.empty((reps, THRESHOLDS.size))
    loss = np.empty_like(nb)
    mcb = np.empty(reps)
    for r in range(reps):
        s, y = dgp.sample(n, rng)
        table = decision_curve(s, y, thresholds=THRESHOLDS, decompose=True).table
        nb[r] = table["net_benefit"]
        loss[r] = table["miscalibration_loss"]
        mcb[r] = corp_decomposition(s, y)["mcb"]
    return {"nb": nb, "loss": loss, "mcb": mcb}


def estimate_errors(dgp: DGP, *, n: int, reps: int, seed: int) -> dict[str, float]:
    """Mean absolute errors of NB and loss over replicates and thresholds, and the bias of
    the MCB (the small study of tests/test_decision.py)."""
    est = replicate(dgp, n, reps, seed)
    truth = np.array([dgp.truth(t) for t in THRESHOLDS])
    return {"nb_mae": float(np.mean(np.abs(est["nb"] - truth[:, 0]))),
            "loss_mae": float(np.mean(np.abs(est["loss"] - truth[:, 1]))),
            "mcb_bias": float(np.mean(est["mcb"]) - dgp.mcb())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    reps = 100 if args.quick else args.reps
    sizes = (500, 2000) if args.quick else (500, 2000, 10000)
    print(f"{reps} samples per DGP and n; scores Beta(2, 5); bias with its Monte Carlo SE")
    print(f"{'dgp':>15} {'n':>6} {'t':>5} {'NB true':>9} {'NB bias (se)':>20} {'NB rmse':>8} "
          f"{'loss true':>9} {'loss bias (se)':>20} {'loss rmse':>9}")
    mcb_rows = []
    for k, dgp in enumerate(DGPS):
        truth = np.array([dgp.truth(t) for t in THRESHOLDS])
        for j, n in enumerate(sizes):
            est = replicate(dgp, n, reps, seed=1900 + 10 * k + j)
            for i, t in enumerate(THRESHOLDS):
                cells = []
                for key, true in (("nb", truth[i, 0]), ("loss", truth[i, 1])):
                    err = est[key][:, i] - true
                    se = err.std(ddof=1) / np.sqrt(reps)
                    cells += [f"{true:9.5f}", f"{err.mean():+9.5f} ({se:.5f})".rjust(20),
                              f"{np.sqrt(np.mean(err ** 2)):8.5f}"]
                print(f"{dgp.name:>15} {n:>6} {t:>5.2f} " + " ".join(cells))
            err = est["mcb"] - dgp.mcb()
            mcb_rows.append((dgp.name, n, dgp.mcb(), err.mean(),
                             err.std(ddof=1) / np.sqrt(reps)))
    print()
    print(f"{'dgp':>15} {'n':>6} {'MCB true':>10} {'2 int MCB_t bias (se)':>24}")
    for name, n, true, bias, se in mcb_rows:
        print(f"{name:>15} {n:>6} {true:10.6f} {f'{bias:+.6f} ({se:.6f})':>24}")


if __name__ == "__main__":
    main()
