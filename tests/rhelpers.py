"""Run R for reference values, in a subprocess so that an R crash fails one test only.

``run_r(code, **arrays)`` writes each array to a file, exposes it in R under its keyword name
as a numeric vector, runs ``code`` with ``Rscript``, and returns the R variable ``out`` (a named
list of numeric vectors, or a numeric vector) as a dict of NumPy arrays (or an array).
Numbers cross the boundary as 17 significant digits, which round-trips float64 exactly.
R runs in the repository root, so ``source("r_scripts/...")`` works from any directory.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

RSCRIPT = shutil.which("Rscript")
REPO_ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def r_available() -> bool:
    if RSCRIPT is None:
        return False
    res = subprocess.run([RSCRIPT, "-e", "library(locfit)"], capture_output=True, timeout=60)
    return res.returncode == 0


def run_r(code: str, *, timeout: float = 300, **arrays) -> dict[str, np.ndarray] | np.ndarray:
    if RSCRIPT is None:
        raise RuntimeError("Rscript is not on PATH: install R (see README, test set-up)")
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        loads = []
        for name, values in arrays.items():
            path = tmpdir / f"{name}.txt"
            np.savetxt(path, np.atleast_1d(np.asarray(values, dtype=np.float64)), fmt="%.17g")
            loads.append(f'{name} <- scan("{path}", quiet = TRUE)')
        out_path = tmpdir / "out.json"
        script = "\n".join(
            [
                "options(digits = 17)",
                *loads,
                code,
                "to_json <- function(v) paste0('[', paste(ifelse(is.na(v), 'null', "
                "sprintf('%.17g', v)), collapse = ','), ']')",
                "if (is.list(out)) {",
                "  body <- paste(sprintf('\"%s\": %s', names(out), "
                "vapply(out, function(v) to_json(as.numeric(v)), '')), collapse = ', ')",
                "  txt <- paste0('{', body, '}')",
                "} else txt <- to_json(as.numeric(out))",
                f'writeLines(txt, "{out_path}")',
            ]
        )
        script_path = tmpdir / "script.R"
        script_path.write_text(script)
        res = subprocess.run([RSCRIPT, "--vanilla", str(script_path)], capture_output=True,
                             text=True, timeout=timeout, cwd=REPO_ROOT)
        if res.returncode != 0:
            raise RuntimeError(f"R failed (exit {res.returncode}):\n{res.stderr[-3000:]}")
        data = json.loads(out_path.read_text())
    conv = lambda v: np.array([np.nan if x is None else x for x in v], dtype=np.float64)  # noqa: E731
    if isinstance(data, dict):
        return {k: conv(v) for k, v in data.items()}
    return conv(data)


def r_versions(packages: list[str]) -> dict[str, object]:
    """R's version, platform and BLAS library, and the installed version of each package."""
    if RSCRIPT is None:
        raise RuntimeError("Rscript is not on PATH: install R (see README, test set-up)")
    code = ("cat(R.version.string, R.version$platform, extSoftVersion()[['BLAS']], sep = '\\n');"
            " for (p in commandArgs(TRUE)) cat(p, as.character(packageVersion(p)), sep = '\\n')")
    res = subprocess.run([RSCRIPT, "--vanilla", "-e", code, *packages],
                         capture_output=True, text=True, timeout=60, check=True)
    lines = res.stdout.splitlines()
    return {"version": lines[0], "platform": lines[1], "blas": lines[2],
            "packages": dict(zip(lines[3::2], lines[4::2], strict=True))}
