# R side of locacal's locfit backend (locacal/curves/rlocfit.py sources this file).
# One function, called with plain vectors, returning plain vectors: the Python side converts
# nothing but numeric vectors and R errors.

locacal_locfit <- function(d, s, w, points, nn, h, deg, kern, maxk, exact) {
  suppressPackageStartupMessages(library(locfit))
  dat <- data.frame(d = d, s = s, w = w)
  # `exact`: evaluate at the requested points themselves (ev = points);
  # otherwise locfit's default adaptive tree with interpolation, as predict() gives it.
  # (the fitted values at ev = points come back with predict(where = "fitp"), in order).
  ev <- if (exact) points else rbox()
  fit <- locfit(d ~ lp(s, nn = nn, h = h, deg = deg), data = dat, weights = w,
                kern = kern, maxk = maxk, ev = ev)
  if (exact) as.numeric(predict(fit, where = "fitp"))
  else as.numeric(predict(fit, newdata = points))
}
