"""R's reference values, committed with the inputs R ran on, so that the parity tests run
without R and on exactly the arrays R saw.

A reference is an R snippet run on arrays that a test makes from fixed seeds. Its file
``tests/reference/<name>.json`` holds the snippet, the R and package versions that ran it,
the fingerprint (SHA-256 of the code lines) of every R file the snippet sources, the input
arrays and R's output ``out``. Numbers are shortest round-trip decimals (exact float64),
``null`` for R's ``NA``; a long vector of few distinct numbers is stored as levels and codes.

Inputs are stored, not re-made: a test's generator may round the last bits of its arrays
differently under another NumPy, BLAS or CPU (NumPy's SIMD ``exp``, BLAS's summation order),
and locacal must be compared with R on the arrays R was given. The exception: a test whose
inputs would be too large to store (10^4 to 10^5 rows) makes them with bit-stable operations
only (PCG64 uniforms and integers, sorting, IEEE arithmetic; no ``exp``, ``log``, power or
BLAS) and declares them in ``stable`` (in all its cases alike); a file keeps a stable input's
length and a sample of its values, and the test re-makes it.

* ``RReference.inputs_and_output()`` replaces ``run_r(code, **arrays)`` in a test: it returns
  the inputs R saw and R's output, after checking that the snippet, the sourced R files and
  the test's generator are the ones the file was made from. No R is needed.
* ``tests/test_r_references.py`` re-runs every snippet in R on those inputs (marked ``r``, so
  required in CI) and asserts that R still produces the stored numbers.
* ``python tests/reference/regenerate.py`` re-runs the snippets on freshly generated inputs
  and rewrites the files (after a change of a snippet, of its inputs, or of R).

The test modules define their references at import; ``all_references()`` imports them.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.rhelpers import REPO_ROOT, r_versions, run_r

REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
# the test modules that define references (tests/test_r_references.py checks that every file
# in REFERENCE_DIR belongs to one of their references)
MODULES = (
    "tests.test_internal_validation_r",
    "tests.test_compare_models",
    "tests.test_lcs",
    "tests.test_local_binomial_parity_r",
    "tests.test_local_parity_r",
    "tests.test_local_tree",
    "tests.test_metrics_parity_r",
    "tests.test_recalibration_parity",
    "tests.test_selection",
    "tests.test_simultaneous",
    "tests.test_trees",
)
REGENERATE = "python tests/reference/regenerate.py"
# files below REFERENCE_DIR that are not rreferences: tests/test_clinical.py's several data
# sets under one R script (inputs stored), re-run by that module's own r-marked tests;
# tests/test_decision.py's output of the Python package dcurves (inputs stored)
OTHER_FILES = ("clinical_r.json", "dcurves_decision.json")
# How closely a test's generator must still make the stored inputs. Measured: the inputs
# that go through np.exp and x @ beta move by at most 8 units in the last place (9.1e-16
# relative) between NumPy 2.4's AVX-512, AVX2 and SSE code paths and OpenBLAS kernels. A
# changed seed, size or formula moves them by far more than 1e-12; the absolute 1e-15 is for
# values near 0 (the inputs are scores, labels, weights and points of order 1). A label
# (u < p) flips only if a uniform draw falls within those few ulps of p: ~1e-16 per row.
INPUT_RTOL = 1e-12
INPUT_ATOL = 1e-15
STABLE_SAMPLE = 20  # about this many values of a stable input are kept in its file

Output = dict[str, np.ndarray] | np.ndarray
Arrays = dict[str, np.ndarray]

_REGISTRY: dict[str, RReference] = {}


def _as_r_input(values) -> np.ndarray:
    """The array exactly as ``run_r`` passes it to R."""
    return np.atleast_1d(np.asarray(values, dtype=np.float64))


def _stable_sample(values: np.ndarray) -> np.ndarray:
    """Evenly spaced values of a stable input, the first one included."""
    return values[:: max(1, values.size // STABLE_SAMPLE)]


def _sourced_files(code: str) -> list[str]:
    return re.findall(r'source\("([^"]+)"\)', code)


def _code_fingerprint(path: str) -> str:
    """SHA-256 of a sourced R file's code lines: comments and blank lines left out, so that
    rewording a comment does not make a reference stale."""
    lines = [line.rstrip() for line in (REPO_ROOT / path).read_text().splitlines()]
    code = "\n".join(line for line in lines if line.strip() and not line.lstrip().startswith("#"))
    return hashlib.sha256(code.encode()).hexdigest()


def _attached_packages(code: str) -> list[str]:
    texts = [code] + [(REPO_ROOT / path).read_text() for path in _sourced_files(code)]
    return sorted({pkg for text in texts for pkg in re.findall(r"library\((\w+)\)", text)})


def _encode(values: np.ndarray) -> list | dict:
    """A list of numbers; a long vector of few distinct numbers (labels, a tree's
    predictions) as ``{"levels": distinct numbers, "codes": index of each value in levels}``,
    the codes a string of digits when there are at most 10 levels."""
    levels, codes = np.unique(values, return_inverse=True)  # NaNs sort last, each its own
    if values.size > 1000 and levels.size <= 100:
        codes = codes.ravel()
        return {"levels": _encode(levels),
                "codes": "".join(map(str, codes)) if levels.size <= 10 else codes.tolist()}
    return [None if np.isnan(v) else float(v) for v in values]


def _decode(values: list | dict) -> np.ndarray:
    if isinstance(values, dict):
        codes = values["codes"]
        if isinstance(codes, str):
            codes = np.frombuffer(codes.encode("ascii"), dtype=np.uint8) - ord("0")
        return _decode(values["levels"])[np.asarray(codes, dtype=np.intp)]
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def stored_output(stored: dict) -> Output:
    """The output in a reference file, as ``run_r`` returned it."""
    out = stored["out"]
    return {k: _decode(v) for k, v in out.items()} if isinstance(out, dict) else _decode(out)


def _close(made: np.ndarray, kept: np.ndarray) -> bool:
    return made.shape == kept.shape and np.allclose(made, kept, rtol=INPUT_RTOL,
                                                    atol=INPUT_ATOL)


@dataclass(frozen=True)
class RReference:
    """One R snippet, the function that makes its inputs, and its committed output.

    ``name`` is the file's path below ``tests/reference`` without ``.json``; ``code`` is
    compared after ``textwrap.dedent`` and stripping of blank first and last lines;
    ``stable`` names the inputs made by bit-stable operations only, which are re-made rather
    than stored (see the module docstring).
    """

    name: str
    code: str
    inputs: Callable[[], Mapping[str, object]]
    stable: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return REFERENCE_DIR / f"{self.name}.json"

    @property
    def snippet(self) -> str:
        return textwrap.dedent(self.code).strip("\n")

    def stored(self) -> dict:
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path} is missing: run {REGENERATE} {self.name}")
        return _read(self.path)

    def made_inputs(self) -> Arrays:
        """The test's generator's arrays, as R would be given them."""
        return {key: _as_r_input(values) for key, values in self.inputs().items()}

    def checked_inputs(self, stored: dict) -> Arrays:
        """The inputs R ran on, after checking that ``stored`` was made by this snippet, these
        sourced files and (to ``INPUT_RTOL``) this generator."""
        stale = f"reference {self.name} is stale ({{}}): run {REGENERATE} {self.name}"
        if stored["snippet"] != self.snippet.splitlines():
            raise AssertionError(stale.format("the R snippet changed"))
        sources = {path: _code_fingerprint(path) for path in _sourced_files(self.snippet)}
        if stored["sources"] != sources:
            raise AssertionError(stale.format(f"a sourced R file changed: {sorted(sources)}"))
        made = self.made_inputs()
        kept = {key: _decode(values) for key, values in stored["inputs"].items()}
        samples = {key: (entry["length"], _decode(entry["sample"]))
                   for key, entry in stored["stable_inputs"].items()}

        def unchanged(key: str) -> bool:
            if key not in made:
                return False
            if key in self.stable:
                return (key in samples and made[key].size == samples[key][0]
                        and _close(_stable_sample(made[key]), samples[key][1]))
            return key in kept and _close(made[key], kept[key])

        changed = sorted(k for k in made.keys() | kept.keys() | samples.keys()
                         if not unchanged(k))
        if changed:
            raise AssertionError(stale.format(f"inputs changed: {changed}"))
        return {key: kept.get(key, values) for key, values in made.items()}

    def inputs_and_output(self) -> tuple[Arrays, Output]:
        """The arrays R ran on and its output (what ``run_r(code, **arrays)`` returned), from
        the file, stable inputs re-made; see ``checked_inputs``."""
        stored = self.stored()
        return self.checked_inputs(stored), stored_output(stored)

    def run(self, arrays: Mapping[str, np.ndarray]) -> Output:
        """Run the snippet in R now, on ``arrays``."""
        return run_r(self.snippet, **arrays)

    def regenerate(self) -> None:
        """Run the snippet on freshly made inputs and rewrite the file."""
        arrays = self.made_inputs()
        missing = sorted(set(self.stable) - arrays.keys())
        if missing:
            raise ValueError(f"{self.name}: stable inputs {missing} are not among the inputs")
        out = self.run(arrays)
        record = {
            "name": self.name,
            "r": r_versions(_attached_packages(self.snippet)),
            "snippet": self.snippet.splitlines(),
            "sources": {path: _code_fingerprint(path) for path in _sourced_files(self.snippet)},
            "inputs": {key: _encode(values) for key, values in arrays.items()
                       if key not in self.stable},
            "stable_inputs": {key: {"length": values.size,
                                    "sample": _encode(_stable_sample(values))}
                              for key, values in arrays.items() if key in self.stable},
            "out": ({k: _encode(v) for k, v in out.items()} if isinstance(out, dict)
                    else _encode(out)),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(_dumps(record))

    def r_now(self) -> dict[str, object]:
        """The versions of R and of the snippet's packages installed now."""
        return r_versions(_attached_packages(self.snippet))


def r_reference(name: str, code: str, inputs: Callable[[], Mapping[str, object]],
                stable: tuple[str, ...] = ()) -> RReference:
    """Define (and register) the reference ``name``; see the module docstring."""
    ref = RReference(name, code, inputs, tuple(stable))
    known = _REGISTRY.get(name)
    if known is not None and known.snippet != ref.snippet:
        raise ValueError(f"two references are named {name!r}")
    _REGISTRY[name] = ref
    return ref


@functools.cache
def all_references() -> dict[str, RReference]:
    for module in MODULES:
        importlib.import_module(module)
    return dict(sorted(_REGISTRY.items()))


def reference_files() -> set[str]:
    """The names of the rreference files below REFERENCE_DIR."""
    return {path.relative_to(REFERENCE_DIR).with_suffix("").as_posix()
            for path in REFERENCE_DIR.rglob("*.json") if path.name not in OTHER_FILES}


def _read(path: Path) -> dict:
    return json.loads(path.read_text())


def _dumps(record: dict) -> str:
    """JSON with one line per key and per snippet line, each number array on one line."""
    def compact(value) -> str:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)

    def block(mapping: dict, indent: str) -> str:
        if not mapping:
            return "{}"
        items = [f"{indent} {json.dumps(k)}: {compact(v)}" for k, v in mapping.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"

    out = record["out"]
    parts = [
        f' "name": {json.dumps(record["name"])}',
        f' "r": {block(record["r"], " ")}',
        ' "snippet": [\n' + ",\n".join(f"  {json.dumps(line)}" for line in record["snippet"])
        + "\n ]",
        f' "sources": {block(record["sources"], " ")}',
        f' "inputs": {block(record["inputs"], " ")}',
        f' "stable_inputs": {block(record["stable_inputs"], " ")}',
        f' "out": {block(out, " ") if isinstance(out, dict) else compact(out)}',
    ]
    return "{\n" + ",\n".join(parts) + "\n}\n"
