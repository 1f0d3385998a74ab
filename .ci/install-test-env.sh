#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine:
#   - R with the locfit and rms packages, from Debian's packages where apt-get is available
#     (the parity tests run R for real; CRAN is not needed);
#   - locacal in editable mode with its test extras (pytest, hypothesis, betacal, ruff and
#     rpy2 < 3.6: rpy2 3.6 does not load against Debian's R 4.2, 3.5.17 does).
# Conda users: `conda env create -f environment.yml` gives the same environment.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! Rscript -e 'library(locfit); library(rms)' >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq r-base-core r-cran-locfit r-cran-rms >/dev/null
  else
    echo "warning: R with locfit and rms is missing and apt-get is unavailable; install R and" \
         "locfit and rms (see environment.yml) or the R tests will be skipped" >&2
  fi
fi

python -m pip install -q -e ".[test]"
