"""The committed R references (tests/reference/) are R's numbers: re-run each snippet in R on
the inputs stored with it.

Marked ``r``: required in CI (``LOCACAL_REQUIRE_R=1``), skipped elsewhere when R is missing,
where the parity tests still compare locacal with the committed numbers.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests import rreference
from tests.rreference import REGENERATE, all_references, reference_files, stored_output

REFERENCES = all_references()


@pytest.mark.r
@pytest.mark.parametrize("name", list(REFERENCES))
def test_r_reproduces_the_committed_reference(name):
    ref = REFERENCES[name]
    stored = ref.stored()
    arrays = ref.checked_inputs(stored)  # the inputs R ran on (a stale file fails here)
    out = ref.run(arrays)
    now = ref.r_now()
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
            err_msg=f"{name}[{key}]: R {now['version']} {now['packages']} "
                    f"differs from the committed {stored['r']['version']} "
                    f"{stored['r']['packages']}; if R changed, run {REGENERATE} {name}")


def test_every_reference_file_belongs_to_a_reference():
    files = reference_files()
    assert files == set(REFERENCES), (
        f"unused files: {sorted(files - set(REFERENCES))}, "
        f"missing files: {sorted(set(REFERENCES) - files)}")


def _with_inputs(ref, **changes):
    """``ref`` whose generator makes ``changes`` instead (``None``: leaves that input out)."""
    made = ref.made_inputs()
    arrays = {k: v for k, v in {**made, **changes}.items() if v is not None}
    return dataclasses.replace(ref, inputs=lambda: arrays)


def test_a_reference_refuses_other_snippets_inputs_and_sources(monkeypatch):
    ref = REFERENCES["local_parity_r/zero_weight_rows"]
    arrays, out = ref.inputs_and_output()
    assert set(out) == {"w", "dup"} and set(arrays) == {"pts", "s", "d", "w"}
    made = ref.made_inputs()
    # a generator that rounds last bits differently (another NumPy, BLAS or CPU) is the same
    # generator, and the test still gets the stored arrays, the ones R saw
    nudged = {"pts": np.nextafter(made["pts"], 1), "w": made["w"] * (1 + 4e-16)}
    assert not np.array_equal(nudged["pts"], made["pts"])
    again, _ = _with_inputs(ref, **nudged).inputs_and_output()
    for key in arrays:
        np.testing.assert_array_equal(again[key], arrays[key])
    # a change of the generator beyond INPUT_RTOL is not
    for changes, names in [({"pts": made["pts"] * (1 + 1e-9)}, "'pts'"),
                           ({"w": None}, "'w'"),
                           ({"d": np.r_[1 - made["d"][:1], made["d"][1:]]}, "'d'"),
                           ({"s": made["s"][:-1], "x": made["s"]}, "'s', 'x'")]:
        with pytest.raises(AssertionError, match=rf"inputs changed: \[{names}\]"):
            _with_inputs(ref, **changes).inputs_and_output()
    with pytest.raises(AssertionError, match="the R snippet changed"):
        dataclasses.replace(ref, code=ref.code.replace("nn = 0.3", "nn = 0.31")
                            ).inputs_and_output()
    sourcing = REFERENCES["metrics_parity_r/binned_n40_seed0"]
    monkeypatch.setattr(rreference, "_code_fingerprint", lambda path: "edited")
    with pytest.raises(AssertionError, match="a sourced R file changed"):
        sourcing.inputs_and_output()


def test_a_stable_input_is_remade_and_checked():
    ref = REFERENCES["lcs/pieces_n20000_seed3_tree"]
    assert ref.stable == ("s",) and set(ref.stored()["inputs"]) == {"d"}
    arrays, _ = ref.inputs_and_output()
    made = ref.made_inputs()
    np.testing.assert_array_equal(arrays["s"], made["s"])  # re-made, not stored
    again, _ = _with_inputs(ref, s=np.nextafter(made["s"], 1)).inputs_and_output()
    np.testing.assert_array_equal(again["s"], np.nextafter(made["s"], 1))
    for changes in [{"s": made["s"] * (1 + 1e-9)}, {"s": made["s"][:-1]}]:
        with pytest.raises(AssertionError, match=r"inputs changed: \['s'\]"):
            _with_inputs(ref, **changes).inputs_and_output()
    with pytest.raises(AssertionError, match=r"inputs changed: \['s'\]"):
        dataclasses.replace(ref, stable=()).inputs_and_output()  # stored in no file


def test_sourced_file_fingerprint_ignores_comments_only(tmp_path):
    original = "# the formula\nf <- function(x) x + 1  # add one\n"
    files = {"same": "# the formula, reworded\n\nf <- function(x) x + 1  # add one\n",
             "edited": original.replace("x + 1", "x + 2")}
    (tmp_path / "original.R").write_text(original)
    for name, text in files.items():
        (tmp_path / f"{name}.R").write_text(text)
    prints = {p.stem: rreference._code_fingerprint(str(p)) for p in tmp_path.glob("*.R")}
    assert prints["same"] == prints["original"] != prints["edited"]
