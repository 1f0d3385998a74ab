# R side of locacal's locfit backend (locacal/curves/rlocfit.py sources this file once, on its
# R thread). Fits live in `locacal_fits` under a key the Python side chooses; the Python side
# sends and receives plain vectors only, and drops a fit's key when it no longer needs it.

locacal_fits <- new.env(parent = emptyenv())

# `family`: "default" (locfit's local least squares) or "binomial" (local logistic
# likelihood; the caller sends d = label x weight, locfit's successes out of `w` trials).
locacal_locfit_fit <- function(key, d, s, w, nn, h, deg, kern, maxk, exact,
                               family = "default") {
  dat <- data.frame(d = d, s = s, w = w)
  fit_at <- function(ev) {
    if (family == "binomial")
      locfit(d ~ lp(s, nn = nn, h = h, deg = deg), data = dat, weights = w,
             kern = kern, maxk = maxk, ev = ev, family = "binomial")
    else
      locfit(d ~ lp(s, nn = nn, h = h, deg = deg), data = dat, weights = w,
             kern = kern, maxk = maxk, ev = ev)
  }
  # `exact`: the fit is evaluated at the requested points themselves (ev = points), so it is
  # made at each request; otherwise locfit's default adaptive tree (ev = rbox()), made now.
  assign(key, if (exact) fit_at else fit_at(rbox()), envir = locacal_fits)
  invisible(NULL)
}

locacal_locfit_predict <- function(key, points) {
  model <- get(key, envir = locacal_fits)
  # with ev = points, the fitted values come back in order with predict(where = "fitp")
  if (is.function(model)) as.numeric(predict(model(points), where = "fitp"))
  else as.numeric(predict(model, newdata = points))
}

locacal_locfit_drop <- function(key) {
  rm(list = key, envir = locacal_fits)
  invisible(NULL)
}
