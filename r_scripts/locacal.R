# locacal from R: calibration curves, the Local Calibration Score, the calibration report and
# recalibration, computed by the Python package locacal through reticulate, returned as base R
# data.frames (and numbers).
#
#   Sys.setenv(RETICULATE_PYTHON = "/path/to/python")      # the Python where locacal is installed
#   source("r_scripts/locacal.R")                          # pip's copy: <site-packages>/locacal/r_scripts/locacal.R
#   locacal_calibration_report(d$score, d$label)
#
# Functions (arguments as in Python: scores in [0, 1], labels 0/1, TRUE/FALSE, or two classes
# with pos_label; NA is an error, as NaN is in Python):
#   locacal_calibration_curve(scores, labels, method = "local", weights = NULL, ...)
#       -> data.frame: score, estimate, lower, upper, count, method  (CalibrationCurve.to_frame)
#   locacal_lcs(scores, labels, weights = NULL, ...)               -> one number
#   locacal_calibration_report(scores, labels, weights = NULL, ci = FALSE, ...)
#       scores: a numeric vector (one model), or a data.frame / named list of score columns
#       (several models, compared on the same labels)
#       -> data.frame: one model: metric, value (with ci = TRUE also lower, upper, null_mean);
#          several: one row per model (ci = FALSE) or per model and metric (ci = TRUE)
#   locacal_recalibrate(calibration, test, train = NULL, methods = c("platt", "isotonic",
#                       "beta", "local"), score_column = "score", label_column = "label", ...)
#       the splits are data.frames with a score and a label column
#       -> list(metrics = data.frame, maps = data.frame,
#               scores = list(train =, calibration =, test = data.frame))
#   locacal_use_python(python)   choose the Python (before the first call; default: the
#                                environment variable RETICULATE_PYTHON, else python3 on PATH)
# Further arguments (...) go to the Python function as they are: write integers as 3L, and
# see help(locacal.calibration_curve) etc. in Python for their meaning. Warnings of locacal
# (CalibrationWarning) become R warnings; its errors become R errors with the Python message.
#
# reticulate 1.28 (Debian bookworm) cannot read NumPy 2 arrays, so data cross as plain lists
# of doubles, which keeps every number exact (a double is a Python float).
#
# This file is not sourced by locacal's own R bridge (locacal/curves/rlocfit.py sources
# locfit_bridge.R by name only).

.locacal_state <- new.env(parent = emptyenv())

# The Python helpers: call a locacal function recording its warnings, and turn a pandas
# object into a dict of plain lists (one per column), which reticulate makes a named list.
# (Imports inside the functions: py_run_string(local = TRUE) keeps the names of this code in
# a dict that the functions' globals do not see.)
.locacal_helpers_code <- "
def call(function, args, kwargs):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        result = function(*args, **kwargs)
    return result, [f'{w.category.__name__}: {w.message}' for w in caught]


def columns(table, index_name):
    import pandas as pd

    if isinstance(table, pd.Series):
        table = table.to_frame()
    if not isinstance(table.index, pd.RangeIndex):
        table = table.rename_axis(index=table.index.name or index_name).reset_index()
    return {str(name): column.tolist() for name, column in table.items()}
"

locacal_use_python <- function(python = NULL) {
  if (is.null(python) || !nzchar(python)) {
    python <- Sys.getenv("RETICULATE_PYTHON")
    if (nzchar(python)) return(invisible(python))  # reticulate follows it by itself
    python <- Sys.which("python3")
  }
  if (!nzchar(python)) python <- Sys.which("python")
  if (!nzchar(python)) stop("no Python found: give locacal_use_python() the path of the Python ",
                            "where locacal is installed (pip install locacal)")
  reticulate::use_python(python, required = TRUE)
  invisible(python)
}

.locacal <- function() {
  if (is.null(.locacal_state$module)) {
    if (!reticulate::py_available(initialize = FALSE)) locacal_use_python()
    .locacal_state$module <- tryCatch(
      reticulate::import("locacal", convert = FALSE),
      error = function(e) stop("locacal cannot be imported in the Python reticulate uses (",
                               reticulate::py_config()$python, "): ", trimws(conditionMessage(e)),
                               "; install it there (pip install locacal) or call ",
                               "locacal_use_python() with the right Python first",
                               call. = FALSE))
    .locacal_state$helpers <- reticulate::py_run_string(.locacal_helpers_code, local = TRUE,
                                                         convert = FALSE)
  }
  .locacal_state
}

# An R vector as a Python list: reticulate converts a whole vector at once (a list of length 1
# is built by hand, as reticulate would make a scalar of it).
.locacal_list <- function(x, what) {
  if (is.factor(x)) x <- as.character(x)
  if (!is.atomic(x) || !is.null(dim(x))) stop(what, " must be a vector")
  if (is.logical(x) || is.integer(x)) x <- as.numeric(x)
  x <- unname(x)
  reticulate::r_to_py(if (length(x) == 1L) list(x) else x)
}

.locacal_optional <- function(x, what) if (is.null(x)) NULL else .locacal_list(x, what)

.locacal_seed <- function(seed) if (is.null(seed)) NULL else as.integer(seed)

# Call locacal's function `name` (a dotted path below locacal) with Python arguments.
.locacal_call <- function(name, args, kwargs) {
  state <- .locacal()
  fun <- state$module
  for (part in strsplit(name, ".", fixed = TRUE)[[1]]) fun <- reticulate::py_get_attr(fun, part)
  kwargs <- Filter(Negate(is.null), kwargs)
  out <- state$helpers$call(fun, reticulate::tuple(args), reticulate::r_to_py(kwargs))
  for (message in reticulate::py_to_r(reticulate::py_get_item(out, 1L)))
    warning(message, call. = FALSE)
  reticulate::py_get_item(out, 0L)  # unconverted: pandas objects go through .locacal_frame
}

# A pandas DataFrame or Series as a base R data.frame (the index, if any, as first column).
.locacal_frame <- function(table, index_name = "metric") {
  cols <- reticulate::py_to_r(.locacal()$helpers$columns(table, index_name))
  cols <- lapply(cols, function(column) {
    if (is.list(column)) {  # None inside: NA, then the common type
      column[vapply(column, is.null, logical(1))] <- NA
      column <- unlist(column)
    }
    column
  })
  data.frame(cols, check.names = FALSE, stringsAsFactors = FALSE)
}

locacal_calibration_curve <- function(scores, labels, method = "local", weights = NULL,
                                      pos_label = NULL, seed = NULL, ...) {
  curve <- .locacal_call("calibration_curve",
                         list(.locacal_list(scores, "scores"), .locacal_list(labels, "labels")),
                         c(list(method = method, weights = .locacal_optional(weights, "weights"),
                                pos_label = pos_label, seed = .locacal_seed(seed)), list(...)))
  .locacal_frame(curve$to_frame())
}

locacal_lcs <- function(scores, labels, weights = NULL, pos_label = NULL, ...) {
  value <- .locacal_call("lcs",
                         list(.locacal_list(scores, "scores"), .locacal_list(labels, "labels")),
                         c(list(weights = .locacal_optional(weights, "weights"),
                                pos_label = pos_label), list(...)))
  reticulate::py_to_r(value)
}

locacal_calibration_report <- function(scores, labels, weights = NULL, ci = FALSE,
                                       n_boot = 200L, level = 0.95, seed = NULL,
                                       clinical = FALSE, pos_label = NULL, ...) {
  if (is.list(scores)) {  # a data.frame or a named list: one model per column
    if (is.null(names(scores)) || any(!nzchar(names(scores))))
      stop("scores given as a list or data.frame need a name for every model")
    models <- reticulate::dict()
    for (name in names(scores)) models[[name]] <- .locacal_list(scores[[name]], name)
  } else {
    models <- .locacal_list(scores, "scores")
  }
  report <- .locacal_call("calibration_report", list(models, .locacal_list(labels, "labels")),
                          c(list(weights = .locacal_optional(weights, "weights"), ci = ci,
                                 n_boot = as.integer(n_boot), level = level,
                                 seed = .locacal_seed(seed), clinical = clinical,
                                 pos_label = pos_label), list(...)))
  .locacal_frame(report)
}

locacal_recalibrate <- function(calibration, test, train = NULL,
                                methods = c("platt", "isotonic", "beta", "local"),
                                score_column = "score", label_column = "label", ...) {
  split <- function(data, name) {
    if (is.null(data)) return(NULL)
    if (!is.data.frame(data)) stop(name, " must be a data.frame")
    for (column in c(score_column, label_column))
      if (!column %in% names(data)) stop("the ", name, " data.frame has no column ", column)
    reticulate::tuple(.locacal_list(data[[score_column]], paste(name, "scores")),
                      .locacal_list(data[[label_column]], paste(name, "labels")))
  }
  result <- .locacal_call("recalibrate",
                          list(split(train, "train"), split(calibration, "calibration"),
                               split(test, "test")),
                          c(list(methods = as.list(methods)), list(...)))
  scores <- reticulate::py_to_r(reticulate::import_builtins(convert = FALSE)$list(result$scores))
  list(metrics = .locacal_frame(result$metrics), maps = .locacal_frame(result$maps),
       scores = setNames(lapply(scores, function(s) {
         .locacal_frame(reticulate::py_get_item(result$scores, s))
       }), scores))
}
