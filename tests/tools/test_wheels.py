"""The manifest's wheels: pinned, fetched, never numpy, one for every Python and platform."""

import pytest

import wheels as W  # tools/wheels.py, a dev tool (tools/ is on sys.path: pyproject)


def test_the_manifest_lists_exactly_the_pinned_wheels_for_every_python_and_platform():
    assert W.problems() == []
    assert {W.project_name(w) for w in W.manifest_wheels()} == {
        W.project_name(r) for r in W.requirements()}


@pytest.mark.parametrize("text, name", [
    ("python-dateutil==2.9.0.post0 --hash=sha256:00", "python-dateutil"),
    ("pycollada==0.9.3", "pycollada"),
    ("./wheels/python_dateutil-2.9.0.post0-py2.py3-none-any.whl", "python-dateutil"),
    ("Six-1.17.0-py2.py3-none-any.whl", "six"),
])
def test_project_names_of_requirements_and_wheels(text, name):
    assert W.project_name(text) == name


@pytest.mark.parametrize("wheel, python, platform, ok", [
    ("a-1-py3-none-any.whl", "3.13", "win_arm64", True),
    ("a-1-py2.py3-none-any.whl", "3.11", "macosx_11_0_arm64", True),
    ("a-1-cp311-cp311-manylinux_2_28_x86_64.whl", "3.11", "manylinux_2_28_x86_64", True),
    ("a-1-cp311-cp311-manylinux_2_28_x86_64.whl", "3.13", "manylinux_2_28_x86_64", False),
    ("a-1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "3.11",
     "manylinux_2_28_x86_64", True),
    ("a-1-cp311-cp311-win_amd64.whl", "3.11", "manylinux_2_28_x86_64", False),
    ("a-1-cp311-abi3-win_amd64.whl", "3.13", "win_amd64", True),
    ("a-1-cp311-cp311-macosx_10_13_x86_64.whl", "3.11", "macosx_10_15_x86_64", True),
    ("a-1-cp311-cp311-macosx_12_0_x86_64.whl", "3.11", "macosx_10_15_x86_64", False),
    ("a-1-cp311-cp311-macosx_11_0_arm64.whl", "3.11", "macosx_10_15_x86_64", False),
])
def test_a_wheel_covers_the_pythons_and_platforms_its_tags_name(wheel, python, platform, ok):
    assert W.covers(wheel, python, platform) is ok


def test_numpy_or_a_compiled_wheel_for_one_python_is_reported(monkeypatch):
    listed = W.manifest_wheels()
    monkeypatch.setattr(W, "manifest_wheels", lambda: listed + [
        "./wheels/numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.whl"])
    found = W.problems()
    assert any("numpy is bundled with Blender" in p for p in found)
    monkeypatch.setattr(W, "manifest_wheels", lambda: listed[1:])
    found = W.problems()
    assert any(p.startswith(f"{W.project_name(listed[0])}: no wheel in the manifest for Python "
                            "3.13") for p in found)


def test_only_a_named_gap_may_go_uncovered(monkeypatch):
    """PyYAML has no CPython 3.11 wheel for Windows on ARM (a known, documented gap); any
    other missing wheel of it is an error."""
    assert ("pyyaml", "3.11", "win_arm64") in W.KNOWN_GAPS
    listed = W.manifest_wheels()
    monkeypatch.setattr(W, "manifest_wheels", lambda: [
        w for w in listed if not ("pyyaml" in w and "cp313" in w and "win_arm64" in w)])
    assert any(p == "pyyaml: no wheel in the manifest for Python 3.13 on win_arm64"
               for p in W.problems())
