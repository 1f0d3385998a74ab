"""R's reference values, committed, so that the parity tests run without R.

A reference is an R snippet run on arrays that a test makes from fixed seeds. Its file
``tests/reference/<name>.json`` holds the snippet, the R and package versions that ran it,
the fingerprint (length and SHA-256 of the float64 values) of every input array and of the
code lines of every R file the snippet sources, and R's output ``out``: numbers as
shortest round-trip decimals (exact float64), ``null`` for R's ``NA``, a long vector of few
distinct numbers as levels and codes. Inputs are not stored (some have 10^5 rows): the
fingerprints prove that the test still passes R the arrays R saw.

* ``RReference.values(**arrays)`` replaces ``run_r(code, **arrays)`` in a test: it returns the
  stored output, after checking that the snippet and the arrays are the ones it was made
  from. No R is needed.
* ``tests/test_r_references.py`` re-runs every snippet in R (marked ``r``, so required in CI)
  and asserts that R still produces the stored numbers.
* ``python tests/reference/regenerate.py`` re-runs the snippets and rewrites the files (after a
  change of a snippet, of its inputs, or of R).

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
    "tests.test_lcs",
    "tests.test_local_parity_r",
    "tests.test_local_tree",
    "tests.test_metrics_parity_r",
    "tests.test_recalibration_parity",
    "tests.test_selection",
    "tests.test_trees",
)
REGENERATE = "python tests/reference/regenerate.py"

Output = dict[str, np.ndarray] | np.ndarray

_REGISTRY: dict[str, RReference] = {}


def _as_r_input(values) -> np.ndarray:
    """The array exactly as ``run_r`` passes it to R."""
    return np.atleast_1d(np.asarray(values, dtype=np.float64))


def fingerprint(values) -> dict[str, object]:
    arr = np.ascontiguousarray(_as_r_input(values), dtype="<f8")
    return {"length": int(arr.size), "sha256": hashlib.sha256(arr.tobytes()).hexdigest()}


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
    """A list of numbers; a long vector of few distinct numbers (a tree's predictions) as
    ``{"levels": distinct numbers, "codes": index of each value in levels}``."""
    levels, codes = np.unique(values, return_inverse=True)  # NaNs sort last, each its own
    if values.size > 1000 and levels.size <= 100:
        return {"levels": _encode(levels), "codes": codes.ravel().tolist()}
    return [None if np.isnan(v) else float(v) for v in values]


def _decode(values: list | dict) -> np.ndarray:
    if isinstance(values, dict):
        return _decode(values["levels"])[np.asarray(values["codes"], dtype=np.intp)]
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def stored_output(stored: dict) -> Output:
    """The output in a reference file, as ``run_r`` returned it."""
    out = stored["out"]
    return {k: _decode(v) for k, v in out.items()} if isinstance(out, dict) else _decode(out)


@dataclass(frozen=True)
class RReference:
    """One R snippet, the function that makes its inputs, and its committed output.

    ``name`` is the file's path below ``tests/reference`` without ``.json``; ``code`` is
    compared after ``textwrap.dedent`` and stripping of blank first and last lines.
    """

    name: str
    code: str
    inputs: Callable[[], Mapping[str, object]]

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

    def check_provenance(self, stored: dict, arrays: Mapping[str, object]) -> None:
        """Fail unless ``stored`` was made by this snippet, these sourced files and arrays."""
        stale = f"reference {self.name} is stale ({{}}): run {REGENERATE} {self.name}"
        if stored["snippet"] != self.snippet.splitlines():
            raise AssertionError(stale.format("the R snippet changed"))
        sources = {path: _code_fingerprint(path) for path in _sourced_files(self.snippet)}
        if stored["sources"] != sources:
            raise AssertionError(stale.format(f"a sourced R file changed: {sorted(sources)}"))
        prints = {key: fingerprint(values) for key, values in arrays.items()}
        if stored["inputs"] != prints:
            changed = sorted(k for k in prints.keys() | stored["inputs"].keys()
                             if prints.get(k) != stored["inputs"].get(k))
            raise AssertionError(stale.format(f"inputs changed: {changed}"))

    def values(self, **arrays: object) -> Output:
        """R's output for ``arrays`` (what ``run_r(code, **arrays)`` returned), from the file."""
        stored = self.stored()
        self.check_provenance(stored, arrays)
        return stored_output(stored)

    def run(self) -> tuple[dict, Output]:
        """Run the snippet in R now: the reference record (without output) and R's output."""
        arrays = dict(self.inputs())
        out = run_r(self.snippet, **arrays)
        record = {
            "name": self.name,
            "r": r_versions(_attached_packages(self.snippet)),
            "snippet": self.snippet.splitlines(),
            "sources": {path: _code_fingerprint(path) for path in _sourced_files(self.snippet)},
            "inputs": {key: fingerprint(values) for key, values in arrays.items()},
        }
        return record, out

    def regenerate(self) -> None:
        record, out = self.run()
        record["out"] = ({k: _encode(v) for k, v in out.items()} if isinstance(out, dict)
                         else _encode(out))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(_dumps(record))


def r_reference(name: str, code: str, inputs: Callable[[], Mapping[str, object]]) -> RReference:
    """Define (and register) the reference ``name``; see the module docstring."""
    ref = RReference(name, code, inputs)
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
        f' "out": {block(out, " ") if isinstance(out, dict) else compact(out)}',
    ]
    return "{\n" + ",\n".join(parts) + "\n}\n"
