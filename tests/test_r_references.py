"""The committed R references (tests/reference/) are R's numbers: re-run each snippet in R.

Marked ``r``: required in CI (``LOCACAL_REQUIRE_R=1``), skipped elsewhere when R is missing,
where the parity tests still compare locacal with the committed numbers.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests import rreference
from tests.rreference import REFERENCE_DIR, REGENERATE, all_references, stored_output

REFERENCES = all_references()


@pytest.mark.r
@pytest.mark.parametrize("name", list(REFERENCES))
def test_r_reproduces_the_committed_reference(name):
    ref = REFERENCES[name]
    stored = ref.stored()
    record, out = ref.run()
    for part in ("snippet", "sources", "inputs"):  # R ran what the file says it ran
        assert record[part] == stored[part], f"{name}: {part} changed, run {REGENERATE} {name}"
    want = stored_output(stored)
    if isinstance(want, dict):
        assert isinstance(out, dict) and out.keys() == want.keys()
        pairs = [(key, out[key], want[key]) for key in want]
    else:
        pairs = [("out", out, want)]
    # Same R, same inputs, deterministic code: measured bit-for-bit equal on R 4.2.2 with the
    # reference BLAS; 1e-15 relative leaves room for a few ulps from another BLAS or CPU.
    for key, live, committed in pairs:
        np.testing.assert_allclose(
            live, committed, rtol=1e-15, atol=0, equal_nan=True,
            err_msg=f"{name}[{key}]: R {record['r']['version']} {record['r']['packages']} "
                    f"differs from the committed {stored['r']['version']} "
                    f"{stored['r']['packages']}; if R changed, run {REGENERATE} {name}")


def test_every_reference_file_belongs_to_a_reference():
    # clinical_r.json (tests/test_clinical.py) holds several data sets under one R script and
    # is re-run by that module's own r-marked tests; every other file is one rreference.
    files = {p.relative_to(REFERENCE_DIR).with_suffix("").as_posix()
             for p in REFERENCE_DIR.rglob("*.json") if p.name != "clinical_r.json"}
    assert files == set(REFERENCES), (
        f"unused files: {sorted(files - set(REFERENCES))}, "
        f"missing files: {sorted(set(REFERENCES) - files)}")


def test_a_reference_refuses_other_snippets_inputs_and_sources(monkeypatch):
    ref = REFERENCES["local_parity_r/zero_weight_rows"]
    arrays = dict(ref.inputs())
    assert set(ref.values(**arrays)) == {"w", "dup"}
    with pytest.raises(AssertionError, match=r"inputs changed: \['pts'\]"):
        ref.values(**{**arrays, "pts": np.nextafter(arrays["pts"], 1)})
    with pytest.raises(AssertionError, match=r"inputs changed: \['w'\]"):
        ref.values(**{k: v for k, v in arrays.items() if k != "w"})
    with pytest.raises(AssertionError, match="the R snippet changed"):
        dataclasses.replace(ref, code=ref.code.replace("nn = 0.3", "nn = 0.31")).values(**arrays)
    sourcing = REFERENCES["metrics_parity_r/binned_n40_seed0"]
    monkeypatch.setattr(rreference, "_code_fingerprint", lambda path: "edited")
    with pytest.raises(AssertionError, match="a sourced R file changed"):
        sourcing.values(**sourcing.inputs())


def test_sourced_file_fingerprint_ignores_comments_only(tmp_path):
    original = "# the formula\nf <- function(x) x + 1  # add one\n"
    files = {"same": "# the formula, reworded\n\nf <- function(x) x + 1  # add one\n",
             "edited": original.replace("x + 1", "x + 2")}
    (tmp_path / "original.R").write_text(original)
    for name, text in files.items():
        (tmp_path / f"{name}.R").write_text(text)
    prints = {p.stem: rreference._code_fingerprint(str(p)) for p in tmp_path.glob("*.R")}
    assert prints["same"] == prints["original"] != prints["edited"]
