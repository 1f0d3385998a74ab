"""The data shipped for the notebooks are the files vignettes/data/README.md describes, and
every notebook paired with a Jupytext script holds the same cells as that script."""

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


def _paired_notebooks() -> list[Path]:
    nbformat = pytest.importorskip("nbformat")
    paired = []
    for path in sorted(VIGNETTES.glob("*.ipynb")):
        meta = nbformat.read(path, as_version=4).metadata
        if "py:percent" in meta.get("jupytext", {}).get("formats", ""):
            paired.append(path)
    return paired


@pytest.mark.parametrize("notebook", _paired_notebooks(), ids=lambda p: p.stem)
def test_paired_script_has_the_notebook_cells(notebook):
    jupytext = pytest.importorskip("jupytext")
    script = notebook.with_suffix(".py")
    assert script.exists(), f"{notebook.name} declares a paired {script.name}, which is missing"
    cells = [(c.cell_type, c.source.strip()) for c in jupytext.read(notebook).cells]
    paired = [(c.cell_type, c.source.strip()) for c in jupytext.read(script).cells]
    assert cells == paired, f"{notebook.name} and {script.name} differ: run jupytext --sync"
