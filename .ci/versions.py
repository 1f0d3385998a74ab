"""Print the versions a CI run uses: Python, the numerical packages, rpy2, R and locfit.

Run first by .ci/run (R and rpy2 may not be installed yet: "not installed") and again after
.ci/install-test-env.sh. Never fails: a failed run must still say what it ran with.
"""

from __future__ import annotations

import importlib.metadata
import platform
import shutil
import subprocess

PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "statsmodels", "matplotlib", "rpy2")
NOT_INSTALLED = "not installed"
# R's version line, then locfit's version (or NOT_INSTALLED)
R_CODE = ('cat(R.version.string, "\\n", sep = ""); '
          'cat(if (requireNamespace("locfit", quietly = TRUE)) '
          f'as.character(packageVersion("locfit")) else "{NOT_INSTALLED}", "\\n", sep = "")')


def package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return NOT_INSTALLED


def r_and_locfit() -> tuple[str, str]:
    rscript = shutil.which("Rscript")
    if rscript is None:
        return NOT_INSTALLED, NOT_INSTALLED
    try:
        res = subprocess.run([rscript, "--vanilla", "-e", R_CODE], capture_output=True,
                             text=True, timeout=120, check=True)
        r_version, locfit = res.stdout.splitlines()[:2]
    except (OSError, subprocess.SubprocessError, ValueError) as err:
        return f"unavailable ({type(err).__name__})", "unavailable"
    return r_version, locfit


def main() -> None:
    r_version, locfit = r_and_locfit()
    rows = [("python", f"{platform.python_version()} ({platform.platform()})"),
            *((name, package_version(name)) for name in PACKAGES),
            ("R", r_version), ("locfit", locfit)]
    width = max(len(name) for name, _ in rows)
    for name, version in rows:
        print(f"{name:<{width}}  {version}")


if __name__ == "__main__":
    main()
