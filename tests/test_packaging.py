"""The wheel must carry every subpackage and the R code the locfit bridge sources; the version
is written once, is PEP 440 and is in the changelog."""

import re
from importlib import metadata
from pathlib import Path

import tomllib
from packaging.version import Version

import locacal

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "locacal").rglob("__init__.py")
    }
    assert found <= listed, f"add {sorted(found - listed)} to [tool.setuptools] packages"
    assert config["package-dir"]["locacal.r_scripts"] == "r_scripts"
    assert (ROOT / "r_scripts" / "locfit_bridge.R").is_file()


def test_version_is_written_once_and_read_by_the_build():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "locacal._version.__version__"}


def test_version_is_pep440_and_matches_the_installed_metadata():
    version = Version(locacal.__version__)  # raises InvalidVersion if not PEP 440
    assert str(version) == locacal.__version__, "write the version in PEP 440's normal form"
    installed = metadata.version("locacal")
    assert installed == locacal.__version__, (
        f"installed metadata says {installed}, locacal/_version.py {locacal.__version__}: "
        "reinstall (pip install -e .)")


def test_changelog_has_the_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    version = Version(locacal.__version__)
    if version.is_devrelease or version.is_prerelease:
        # the unreleased section names the development version it describes
        unreleased = re.search(r"^## \[Unreleased\]\n(.*?)(?=^## |\Z)", changelog,
                               flags=re.MULTILINE | re.DOTALL)
        assert unreleased, "CHANGELOG.md has no '## [Unreleased]' section"
        assert locacal.__version__ in unreleased.group(1)
    else:
        assert re.search(rf"^## \[{re.escape(locacal.__version__)}\] - \d{{4}}-\d\d-\d\d$",
                         changelog, flags=re.MULTILINE), (
            f"CHANGELOG.md has no '## [{locacal.__version__}] - YYYY-MM-DD' section")
