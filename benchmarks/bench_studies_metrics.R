# Time of the 2024 study's metric computation (LCS + WMSE + ECE + QMSE) on 20 samples of one
# scenario of the slides' simulation, for benchmarks/bench_studies.py.
#
# The published functions (replication/functions/metrics.R of the study) need tibble, dplyr,
# purrr, binom and pROC; Debian's R 4.2 here lacks binom, so this script restates the same
# formulas in base R, step for step: local_calib_score (jitter N(0, 0.001), locfit degree 0,
# nn = 0.15, rectangular kernel, 100-point grid restricted to the score range, reflected
# density weights), local_ci_scores + weighted_mse (rank() of |s - tau| with ties "first" at
# 101 points, mean of the k = round(0.15 n) nearest labels; the probit interval of
# binom.confint is computed as there, though WMSE uses only the mean), e_calib_error and
# qmse_error (10 quantile bins). Base R is lighter than the dplyr pipelines it replaces, so
# this time is a lower bound for the original code.
#
# Usage: Rscript bench_studies_metrics.R [n_samples] [gamma]

suppressPackageStartupMessages(library(locfit))
args <- commandArgs(trailingOnly = TRUE)
n_samples <- if (length(args) >= 1) as.integer(args[1]) else 20L
gamma <- if (length(args) >= 2) as.numeric(args[2]) else 3

sim_data <- function(n_obs, seed, alpha = 1, gamma = 1, a = c(-0.1, 0.05, 0.2, -0.05)) {
  set.seed(seed)
  x <- matrix(runif(4 * n_obs), ncol = 4)
  eta <- drop(x %*% a) + rnorm(n_obs, 0, 0.5)
  p <- 1 / (1 + exp(-eta))
  list(p = p, p_u = (1 / (1 + exp(-gamma * eta)))^alpha, d = rbinom(n_obs, 1, p))
}

reflected_weights <- function(scores, n) {
  density(c(-scores, scores, 2 - scores), from = 0, to = 1, n = n)$y
}

lcs <- function(obs, scores) {
  scores <- scores + rnorm(length(scores), 0, .001)
  fit <- locfit(d ~ lp(scores, nn = 0.15, deg = 0), kern = "rect", maxk = 200,
                data = data.frame(d = obs, scores = scores))
  grid_raw <- seq(0, 1, length.out = 100)
  keep <- which(grid_raw >= min(scores) & grid_raw <= max(scores))
  grid <- grid_raw[keep]
  g <- pmin(pmax(predict(fit, newdata = grid), 0), 1)
  w <- reflected_weights(scores, length(grid_raw))[keep]
  weighted.mean((grid - g)^2, w)
}

local_ci_scores <- function(obs, scores, tau, nn, prob = .95) {
  k <- round(length(scores) * nn)
  idx <- which(rank(abs(scores - tau), ties.method = "first") <= k)
  x <- sum(obs[idx]); n <- length(idx); m <- x / n
  # binom.confint(method = "probit"): interval on the probit scale
  z <- qnorm(1 - (1 - prob) / 2)
  eta <- qnorm(m); se <- sqrt(m * (1 - m) / n) / dnorm(eta)
  c(xlim = tau, mean = m, lower = pnorm(eta - z * se), upper = pnorm(eta + z * se))
}

wmse <- function(obs, scores, linspace = seq(0, 1, length.out = 101)) {
  local <- t(vapply(linspace, function(tau) local_ci_scores(obs, scores, tau, .15),
                    numeric(4)))
  w <- reflected_weights(scores, nrow(local))
  sum(w * (local[, "xlim"] - local[, "mean"])^2) / sum(w)
}

summary_bins <- function(obs, scores, k = 10, threshold = .5) {
  breaks <- quantile(scores, probs = (0:k) / k)
  labels <- 0:k
  keep <- !duplicated(breaks, fromLast = TRUE)  # slice_tail by breaks
  cls <- cut(scores, breaks = breaks[keep], labels = labels[keep][-1], include.lowest = TRUE)
  correct <- obs == ifelse(scores > threshold, 1, 0)
  data.frame(nb = as.vector(table(cls)[levels(droplevels(cls))]),
             mean_obs = tapply(obs, cls, mean)[levels(droplevels(cls))],
             mean_score = tapply(scores, cls, mean)[levels(droplevels(cls))],
             accuracy = tapply(correct, cls, mean)[levels(droplevels(cls))])
}

ece <- function(obs, scores) {
  b <- summary_bins(obs, scores)
  sum(b$nb * abs(b$accuracy - b$mean_score)) / sum(b$nb)
}

qmse <- function(obs, scores) {
  b <- summary_bins(obs, scores)
  sum(b$nb * (b$mean_obs - b$mean_score)^2) / sum(b$nb)
}

samples <- lapply(seq_len(n_samples), function(i) sim_data(2000, seed = i, gamma = gamma))
elapsed <- system.time({
  values <- vapply(samples, function(s) {
    c(lcs = lcs(s$d, s$p_u), wmse = wmse(s$d, s$p_u), ece = ece(s$d, s$p_u),
      qmse = qmse(s$d, s$p_u))
  }, numeric(4))
})[["elapsed"]]
cat(sprintf("elapsed %.6f\n", elapsed))
cat(sprintf("median_lcs %.6g\n", median(values["lcs", ])))
