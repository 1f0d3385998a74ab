# The 2024 study's calibration metrics (Machado, Charpentier, Flachaire, Gallic & Hu), written
# in base R so that the reference runs where dplyr/tibble/binom are not installed. Each function
# computes the same formula as the published function named in its comment; the tests run this
# file with Rscript and compare locacal with it.

# get_summary_bins(): quantile breaks, duplicated breaks dropped (keeping the last label),
# cut(include.lowest = TRUE), class predicted as scores > threshold.
summary_bins_2024 <- function(obs, scores, k = 10, threshold = .5) {
  breaks <- quantile(scores, probs = (0:k) / k)
  labels <- 0:k
  keep <- !duplicated(breaks, fromLast = TRUE)
  breaks <- breaks[keep]; labels <- labels[keep]
  ord <- order(breaks)
  score_class <- cut(scores, breaks = breaks[ord], labels = labels[ord][-1],
                     include.lowest = TRUE)
  correct <- obs == ifelse(scores > threshold, 1, 0)
  data.frame(
    nb = as.numeric(tapply(obs, score_class, length)),
    mean_obs = as.numeric(tapply(obs, score_class, mean)),
    mean_score = as.numeric(tapply(scores, score_class, mean)),
    accuracy = as.numeric(tapply(correct, score_class, mean))
  )
}

# e_calib_error(): sum nb |accuracy - mean_score| / n
ece_2024 <- function(obs, scores, k = 10) {
  b <- summary_bins_2024(obs, scores, k)
  b <- b[!is.na(b$nb), ]
  sum(b$nb * abs(b$accuracy - b$mean_score)) / sum(b$nb)
}

# the standard ECE on the same bins: sum nb |mean_obs - mean_score| / n
ece_standard_2024_bins <- function(obs, scores, k = 10) {
  b <- summary_bins_2024(obs, scores, k)
  b <- b[!is.na(b$nb), ]
  sum(b$nb * abs(b$mean_obs - b$mean_score)) / sum(b$nb)
}

# qmse_error(): sum nb (mean_obs - mean_score)^2 / n
qmse_2024 <- function(obs, scores, k = 10) {
  b <- summary_bins_2024(obs, scores, k)
  b <- b[!is.na(b$nb), ]
  sum(b$nb * (b$mean_obs - b$mean_score)^2) / sum(b$nb)
}

# local_ci_scores(): mean of the k = round(n nn) nearest, ranks with ties.method = "first"
knn_means_2024 <- function(obs, scores, taus, nn = .15) {
  k <- round(length(scores) * nn)
  vapply(taus, function(tau) {
    rgs <- rank(abs(scores - tau), ties.method = "first")
    mean(obs[rgs <= k])
  }, numeric(1))
}

# weighted_mse(): density of the reflected scores on 101 points as weights
wmse_2024 <- function(obs, scores, nn = .15) {
  taus <- seq(0, 1, length.out = 101)
  means <- knn_means_2024(obs, scores, taus, nn)
  dens <- density(c(-scores, scores, 2 - scores), from = 0, to = 1, n = length(taus))
  sum(dens$y * (taus - means)^2) / sum(dens$y)
}

# the density weights of local_calib_score() on the full 100-point grid
lcs_density_2024 <- function(scores) {
  density(c(-scores, scores, 2 - scores), from = 0, to = 1, n = 100)
}

# local_calib_score() without its jitter line (scores + rnorm(n, 0, .001)), in pieces, so that
# a test can tell the local fit from the
# density weights: the restricted grid, the clipped fit on it (default tree evaluation, or
# exact evaluation at the grid with `exact = TRUE`) and R's density weights there.
lcs_pieces_2024 <- function(obs, scores, exact = FALSE) {
  library(locfit)
  linspace_raw <- seq(0, 1, length.out = 100)
  keep <- which(linspace_raw >= min(scores) & linspace_raw <= max(scores))
  linspace <- linspace_raw[keep]
  dat <- data.frame(d = obs, scores = scores)
  if (exact) {
    fit <- locfit(d ~ lp(scores, nn = 0.15, deg = 0), kern = "rect", maxk = 200,
                  data = dat, ev = linspace)
    g <- predict(fit, where = "fitp")
  } else {
    fit <- locfit(d ~ lp(scores, nn = 0.15, deg = 0), kern = "rect", maxk = 200, data = dat)
    g <- predict(fit, newdata = linspace)
  }
  g[g > 1] <- 1
  g[g < 0] <- 0
  dens <- density(c(-scores, scores, 2 - scores), from = 0, to = 1, n = 100)
  list(grid = linspace, g = g, w = dens$y[keep],
       lcs = weighted.mean((linspace - g)^2, dens$y[keep]))
}
