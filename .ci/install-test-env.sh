#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine:
#   - R with the locfit, rms and reticulate packages, from Debian's packages where apt-get is
#     available (the parity tests run R for real, the R interface r_scripts/locacal.R uses
#     reticulate; CRAN is not needed);
#   - Chromium (Debian's `chromium`), for the test that opens the report page in a browser; a
#     failed install is only a warning (that test then skips, except under .ci/run);
#   - locacal in editable mode with its test extras (pytest, hypothesis, betacal, ruff and
#     rpy2 < 3.6: rpy2 3.6 does not load against Debian's R 4.2, 3.5.17 does) and its docs
#     extras (Sphinx and what the site's build needs).
# Conda users: `conda env create -f environment.yml` gives the same environment (no Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_updated=""
apt_install() {  # apt_install PACKAGE...: Debian packages, quietly
  if [ -z "$apt_updated" ]; then
    $sudo apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

if ! Rscript -e 'library(locfit); library(rms); library(reticulate)' >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    apt_install r-base-core r-cran-locfit r-cran-rms r-cran-reticulate
  else
    echo "warning: R with locfit, rms and reticulate is missing and apt-get is unavailable;" \
         "install them (see environment.yml) or the R tests will be skipped" >&2
  fi
fi

if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
  if ! { command -v apt-get >/dev/null 2>&1 && apt_install chromium; }; then
    echo "warning: Chromium could not be installed (apt-get install chromium); the browser" \
         "test of the report page will be skipped" >&2
  fi
fi

python -m pip install -q -e ".[test,docs]"
