"""internal_validation against ``rms::validate(lrm, method = "boot" | ".632")`` on rms's own
bootstrap indices (issue 19, part 4).

rms draws its bootstrap samples inside ``predab.resample`` with ``sample(n, replace = TRUE)``,
one call per resample and no other random draw, so ``set.seed(s); replicate(B, sample(n,
replace = TRUE))`` replays them exactly (checked with ``validate(debug = TRUE)``, which prints
them). The snippet stores those indices with rms's table; the test feeds them to
:func:`locacal.studies.optimism.validate_splits`.

What can be compared: the optimism (and training, test, corrected values) of the AUC (rms's
Dxy = 2 AUC - 1), of the Brier score (rms's B), of the calibration slope (rms's Slope) and of
the intercept of the slope model (rms's Intercept = locacal's ``joint_intercept``), per
resample and averaged, for the bootstrap and for .632 (rms's weights of the out-of-bag
values are locacal's). What cannot: ICI, LCS and calibration-in-the-large are not in rms's
``validate``; rms's R2, D, U, Q, g, gp and Emax are not in locacal's; rms's cross-validation
draws one permutation and forms contiguous groups, locacal stratified folds (not compared).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from locacal.studies.optimism import validate_splits
from tests.rreference import r_reference

N, P, B = 150, 4, 25
ROWS = ["Dxy", "Intercept", "Slope", "B"]
OURS = ["auc", "joint_intercept", "slope", "brier"]


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(19)
    X = np.round(rng.normal(size=(N, P)), 6)
    eta = 0.3 + X @ np.array([0.8, -0.5, 0.3, 0.0])
    y = (rng.uniform(size=N) < 1.0 / (1.0 + np.exp(-eta))).astype(float)
    return {"x": X.ravel(order="F"), "y": y}


R_VALIDATE = r_reference(
    "internal_validation/rms_validate",
    """
    suppressMessages(library(rms))
    n <- length(y); X <- matrix(x, nrow = n)
    f <- lrm(y ~ X, x = TRUE, y = TRUE)
    rows <- c("Dxy", "Intercept", "Slope", "B")
    cols <- c("index.orig", "training", "test", "optimism", "index.corrected")
    set.seed(41); idx <- replicate(25, sample(n, replace = TRUE))
    set.seed(41); boot <- validate(f, method = "boot", B = 25)
    set.seed(42); idx632 <- replicate(25, sample(n, replace = TRUE))
    set.seed(42); v632 <- validate(f, method = ".632", B = 25)
    per <- sapply(1:10, function(i) {
      set.seed(100 + i); sample(n, replace = TRUE)
      set.seed(100 + i); validate(f, method = "boot", B = 1)[rows, "optimism"]
    })
    idxper <- sapply(1:10, function(i) { set.seed(100 + i); sample(n, replace = TRUE) })
    tight <- function(s) {  # validate.lrm's measures, every lrm.fit converged to 1e-12
      xb <- drop(cbind(1, X) %*% coef(lrm.fit(X[s, ], y[s], eps = 1e-12, maxit = 100)))
      cal <- coef(lrm.fit(xb, y, eps = 1e-12, maxit = 100))
      train <- c(somers2(xb[s], y[s])[["Dxy"]], 0, 1, mean((y[s] - plogis(xb[s]))^2))
      test <- c(somers2(xb, y)[["Dxy"]], cal[[1]], cal[[2]], mean((y - plogis(xb))^2))
      train - test
    }
    pertight <- apply(idxper, 2, tight)
    out <- list(idx = idx, boot = boot[rows, cols], idx632 = idx632,
                v632 = v632[rows, cols], per = per, idxper = idxper, pertight = pertight)
    """,
    _inputs)


def _model() -> LogisticRegression:
    # maximum likelihood, converged far below rms's own tolerance
    return LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=200)


def _splits(flat: np.ndarray, b: int, test_all: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    samples = flat.astype(int).reshape(b, N) - 1  # R's column-major matrix, 1-based
    everyone = np.arange(N)
    return [(s, everyone if test_all else np.setdiff1d(everyone, s)) for s in samples]


def _as_rms(table) -> np.ndarray:
    """locacal's rows in rms's scale (Dxy = 2 AUC - 1; the optimism of Dxy is twice)."""
    out = table.loc[OURS, ["apparent", "training", "test", "optimism", "corrected"]]
    out = out.to_numpy().copy()
    out[0, [0, 1, 2, 4]] = 2.0 * out[0, [0, 1, 2, 4]] - 1.0
    out[0, 3] = 2.0 * out[0, 3]
    return out


@pytest.fixture(scope="module")
def reference():
    inputs, r = R_VALIDATE.inputs_and_output()
    X = inputs["x"].reshape(N, P, order="F")
    return X, inputs["y"], r


def test_bootstrap_optimism_per_resample_equals_rms(reference):
    X, y, r = reference
    per = r["per"].reshape(10, 4)  # column i of R's 4 x 10 matrix
    tight = r["pertight"].reshape(10, 4)
    splits = _splits(r["idxper"], 10, test_all=True)
    for i, split in enumerate(splits):
        res = validate_splits(_model(), X, y, [split], "bootstrap")
        ours = _as_rms(res.table)[:, 3]
        # rms::validate itself: measured max |difference| 6.7e-8 over the 10 resamples. The
        # gap is rms's: validate.lrm's lrm.fit stops once -2 log L changes by less than
        # eps = 0.025, before full precision; with every fit converged (eps = 1e-12, the
        # snippet's `tight`, the same measures on the same rows) the gap is below 1e-10.
        np.testing.assert_allclose(ours, per[i], rtol=0, atol=1e-7)
        np.testing.assert_allclose(ours, tight[i], rtol=0, atol=1e-9)


@pytest.mark.parametrize(("method", "key", "idx"), [("bootstrap", "boot", "idx"),
                                                    (".632", "v632", "idx632")])
def test_validate_table_equals_rms(reference, method, key, idx):
    X, y, r = reference
    splits = _splits(r[idx], B, test_all=method == "bootstrap")
    res = validate_splits(_model(), X, y, splits, method)
    theirs = r[key].reshape(5, 4).T  # rows Dxy, Intercept, Slope, B
    ours = _as_rms(res.table)
    # measured: max |difference| 7.8e-9 (bootstrap) and 3.2e-8 (.632, the out-of-bag slope),
    # rms's stopping rule again (see above); the apparent values agree to 5e-13
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-7)
    np.testing.assert_allclose(ours[:, 0], theirs[:, 0], rtol=0, atol=1e-11)
