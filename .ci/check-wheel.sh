#!/usr/bin/env bash
# The released files work without the checkout: build the sdist and, from it, the wheel (into a
# temporary folder, not dist/), check their metadata with `twine check --strict`, check what
# each archive holds, then install the wheel into a fresh virtual environment (no system site
# packages, so the checkout's editable install cannot leak in; pip fetches the dependencies
# through its cache) and, from a folder outside the checkout, run the demo and `locacal report`
# and check that the installed package finds its R scripts.
# Needs `build` and `twine` (the test extra). Prints the time it took.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/locacal-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset PYTHONPATH PYTHONHOME

echo "-- build the sdist, and the wheel from it"
# from a copy of the files git tracks or would track: a locacal.egg-info left in the checkout by
# an earlier install lists files (SOURCES.txt) that setuptools would otherwise add again
mkdir "$work/src"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
  if [ -e "$file" ]; then cp --parents "$file" "$work/src"; fi   # not deleted since the commit
done
python -m build --outdir "$work/dist" "$work/src" >"$work/build.log" 2>&1 \
  || { cat "$work/build.log"; exit 1; }
sdist=$(ls "$work"/dist/*.tar.gz)
wheel=$(ls "$work"/dist/*.whl)
echo "$(basename "$sdist") $(basename "$wheel")"

echo "-- twine check --strict"
python -m twine check --strict "$sdist" "$wheel"

echo "-- contents of the archives"
python - "$sdist" "$wheel" <<'EOF'
import sys
import tarfile
import zipfile

sdist, wheel = sys.argv[1:]
with tarfile.open(sdist) as tar:
    top = tar.getnames()[0].split("/")[0]
    names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
needed = {"pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "PKG-INFO",
          "locacal/__init__.py", "locacal/_version.py", "r_scripts/locfit_bridge.R",
          "r_scripts/locacal.R"}
missing = sorted(needed - names)
assert not missing, f"the sdist {top} lacks {missing}"
assert not any(name.startswith("tests/") for name in names), "MANIFEST.in prunes tests/"

with zipfile.ZipFile(wheel) as whl:
    files = whl.namelist()
dist_info = next(name.split("/")[0] for name in files if name.endswith(".dist-info/METADATA"))
needed = {"locacal/r_scripts/locfit_bridge.R", "locacal/r_scripts/locacal.R",
          "locacal/_version.py", f"{dist_info}/licenses/LICENSE"}
missing = sorted(needed - set(files))
assert not missing, f"the wheel lacks {missing}"
tests = [name for name in files if name.split("/")[0] in ("tests", "benchmarks", "vignettes")
         or name.rsplit("/", 1)[-1] == "conftest.py"]
assert not tests, f"the wheel carries test or example files: {tests[:5]}"
print(f"sdist: {len(names)} files; wheel: {len(files)} files, no tests, R scripts inside")
EOF

echo "-- install the wheel into a fresh virtual environment"
python -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$venv_python" -m pip install -q "$wheel"

mkdir "$work/run"
cd "$work/run"   # outside the checkout: nothing can be imported from it
echo "-- python -m locacal.demo"
"$venv_python" -m locacal.demo --out demo >demo.log
for file in reliability_diagram.png calibration_curve.csv calibration_report.csv; do
  test -s "demo/$file" || { cat demo.log; echo "demo did not write $file" >&2; exit 1; }
done

echo "-- locacal report"
"$venv_python" - <<'EOF'
import numpy as np
import pandas as pd

rng = np.random.default_rng(0)
score = rng.uniform(0.02, 0.98, 500)
pd.DataFrame({"model": score, "y": rng.binomial(1, score)}).to_csv("scores.csv", index=False)
EOF
"$work/venv/bin/locacal" report scores.csv --score model --label y --out report --quiet
for file in report.html metrics.csv curve.csv reliability.png; do
  test -s "report/$file" || { echo "locacal report did not write $file" >&2; exit 1; }
done

echo "-- the installed package and its R scripts"
"$venv_python" - "$checkout" <<'EOF'
import sys
from importlib import metadata, resources
from pathlib import Path

import locacal
from locacal.localfit.rlocfit import _bridge_file

checkout, venv = Path(sys.argv[1]).resolve(), Path(sys.prefix).resolve()
package = Path(locacal.__file__).resolve().parent
assert package.is_relative_to(venv), f"locacal imported from {package}, not from {venv}"
assert not package.is_relative_to(checkout), f"locacal imported from the checkout: {package}"
assert locacal.__version__ == metadata.version("locacal"), (
    locacal.__version__, metadata.version("locacal"))
scripts = resources.files("locacal.r_scripts")
for name in ("locfit_bridge.R", "locacal.R"):
    assert (scripts / name).is_file(), f"{name} is not in the installed package"
assert _bridge_file() == package / "r_scripts" / "locfit_bridge.R", _bridge_file()
page = Path("report/report.html").read_text(encoding="utf-8")
assert f"Made by locacal {locacal.__version__}." in page, "report.html names no version"
print(f"locacal {locacal.__version__} from {package}; R bridge {_bridge_file()}")
EOF

echo "wheel check passed in $((SECONDS - start)) s"
