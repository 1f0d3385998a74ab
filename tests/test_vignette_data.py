"""The data shipped for the notebooks are the files vignettes/data/README.md describes
(tests/test_notebooks.py runs the notebooks themselves)."""

import hashlib
import re
from pathlib import Path

import pytest

VIGNETTES = Path(__file__).resolve().parent.parent / "vignettes"
DATA = VIGNETTES / "data"


def _documented_checksums() -> dict[str, str]:
    text = (DATA / "README.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    found = {}
    for section in sections:
        name = section.split()[0]
        digest = re.search(r"SHA-256: `([0-9a-f]{64})`", section)
        if digest:
            found[name] = digest.group(1)
    return found


def test_every_csv_is_documented_with_its_checksum_and_small():
    documented = _documented_checksums()
    csvs = sorted(p.name for p in DATA.glob("*.csv") if not p.name.startswith("hmda"))
    assert csvs, "no data files found"
    assert sorted(set(csvs) & set(documented)) == csvs, (csvs, sorted(documented))
    for name in csvs:
        path = DATA / name
        assert path.stat().st_size < 1_000_000, name
        assert hashlib.sha256(path.read_bytes()).hexdigest() == documented[name], name


def test_documented_row_counts():
    pd = pytest.importorskip("pandas")
    insurance = pd.read_csv(DATA / "insurance.csv")
    # MASS::Insurance: 64 cells, 23,359 policyholders and 3,151 claims (README)
    assert len(insurance) == 64
    assert (insurance["Holders"].sum(), insurance["Claims"].sum()) == (23_359, 3_151)
    assert (insurance["Claims"] <= insurance["Holders"]).all()
    pima = pd.read_csv(DATA / "pima.csv")
    assert pima["set"].value_counts().to_dict() == {"Pima.te": 332, "Pima.tr": 200}
    assert set(pima["type"]) == {"Yes", "No"} and not pima.isna().any().any()

