"""Build the vart zip with Blender's tool, then install and toggle it in Blender.

The zip is built and validated by Blender's own ``blender_ext.py`` (shipped in
the bpy wheel). Installing runs in a fresh Python process
(``install_driver.py``) because bpy state is global to a process; its user
folders point at a temporary directory so the real ones are never touched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from repo_paths import REPO as ROOT

BLENDER_EXT = ROOT / "tools" / "blender_ext.py"
DRIVER = Path(__file__).with_name("install_driver.py")
ADDON_KEY = "bl_ext.user_default.vart"

# What the zip may hold: the manifest, the extension root's __init__.py and
# LICENSE, the add-on package, shipped assets and the manifest's wheels. Nothing else.
TOP_LEVEL_FILES = {"blender_manifest.toml", "__init__.py", "LICENSE"}
TOP_LEVEL_DIRS = ("vart_addon/", "assets/", "wheels/")


def run_tool(*args: str) -> subprocess.CompletedProcess:
    """Run Blender's extension tool with this interpreter; fail with its output."""
    process = subprocess.run(
        [sys.executable, str(BLENDER_EXT), *args],
        capture_output=True, text=True, timeout=120,
    )
    assert process.returncode == 0, (
        f"blender_ext {' '.join(args)} failed ({process.returncode}):\n"
        f"{process.stdout}\n{process.stderr}"
    )
    return process


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension zip built from the working tree, validated."""
    run_tool("validate", str(ROOT))
    out_dir = tmp_path_factory.mktemp("dist")
    run_tool("build", "--source-dir", str(ROOT), "--output-dir", str(out_dir))
    zips = sorted(out_dir.glob("*.zip"))
    assert len(zips) == 1, f"expected one zip in {out_dir}, found {zips}"
    run_tool("validate", str(zips[0]))
    return zips[0]


def test_zip_holds_only_the_extension(built_zip: Path) -> None:
    with zipfile.ZipFile(built_zip) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/")]

    for required in ("blender_manifest.toml", "__init__.py", "vart_addon/__init__.py"):
        assert required in names
    import tomllib
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    for wheel in manifest["wheels"]:  # every wheel the manifest lists ships in the zip
        assert wheel.removeprefix("./") in names

    unexpected = [
        n for n in names if n not in TOP_LEVEL_FILES and not n.startswith(TOP_LEVEL_DIRS)
    ]
    assert not unexpected, f"dev files leaked into the zip: {unexpected}"

    caches = [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyo"))]
    assert not caches, caches
    hidden = [n for n in names if any(part.startswith(".") for part in n.split("/"))]
    assert not hidden, hidden

    non_python = [n for n in names if n.startswith("vart_addon/") and not n.endswith(".py")]
    assert not non_python, f"vart_addon/ ships Python only; put data in assets/: {non_python}"


def _real_user_install_marker() -> tuple[bool, float | None]:
    """Whether vart exists in the real user's default extensions repo, and its mtime.

    Blender's default location on Linux; an install that escaped the
    temporary folders would create or touch it.
    """
    import bpy  # the Blender under test: its user folder is named after its version
    version = "%d.%d" % tuple(bpy.app.version[:2])
    path = Path.home() / ".config" / "blender" / version / "extensions" / "user_default" / "vart"
    return (path.exists(), path.stat().st_mtime if path.exists() else None)


def test_install_enable_disable_enable(built_zip: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    user_resources = tmp_path / "blender-user"
    home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        # Any of these would redirect Blender's user folders elsewhere.
        if not key.startswith(("BLENDER_USER_", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"))
    }
    env["HOME"] = str(home)
    env["BLENDER_USER_RESOURCES"] = str(user_resources)

    real_before = _real_user_install_marker()
    process = subprocess.run(
        [sys.executable, str(DRIVER), str(built_zip)],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )
    lines = [l for l in process.stdout.splitlines() if l.startswith("VART_RESULT ")]
    assert process.returncode == 0 and len(lines) == 1, (
        f"driver failed ({process.returncode}):\n{process.stdout}\n{process.stderr}"
    )
    result = json.loads(lines[0][len("VART_RESULT "):])
    context = json.dumps(result, indent=1) + "\n" + process.stderr

    # Installed into the temporary user folders, not the real ones.
    installed = user_resources / "extensions" / "user_default" / "vart"
    assert result["user_extensions"] == str(user_resources / "extensions"), context
    assert result["repo_directory"] == str(installed.parent), context
    assert (installed / "blender_manifest.toml").is_file()
    assert (installed / "vart_addon" / "__init__.py").is_file()
    assert _real_user_install_marker() == real_before

    enabled_states = ("after_install", "after_enable_2")
    disabled_states = ("after_disable_1", "after_disable_2")
    for step in ("install", "disable_1", "enable_2", "disable_2"):
        assert result[step] == ["FINISHED"], f"{step}: {result[step]}\n{context}"
    for name in enabled_states:
        state = result[name]
        assert state["in_preferences"], f"{name}: {ADDON_KEY} not in preferences\n{context}"
        assert state["addon_utils_check"] == [True, True], f"{name}\n{context}"
        assert state["package_imported"], f"{name}\n{context}"
        assert state["module_file"] == str(installed / "__init__.py"), f"{name}\n{context}"
    # The manifest's wheels were installed by Blender into the user's extension site-packages
    # and work there: pycollada makes a document, xacro imports, PyYAML (this Python's and
    # platform's compiled wheel) reads YAML, threadpoolctl finds numpy's OpenBLAS.
    local = user_resources / "extensions" / ".local"
    answers = {"collada": "Collada", "xacro": "process_doc", "yaml": "{'a': [1, 2]}",
               "threadpoolctl": "openblas"}
    for name in enabled_states:
        wheels = result[name]["wheels"]
        assert {m: w["answer"] for m, w in wheels.items()} == answers, f"{name}\n{context}"
        for module, wheel in wheels.items():
            assert wheel["origin"] and Path(wheel["origin"]).is_relative_to(local), \
                f"{name}: {module}\n{context}"
    for name in disabled_states:
        state = result[name]
        assert not state["in_preferences"], f"{name}\n{context}"
        assert state["addon_utils_check"] == [False, False], f"{name}\n{context}"
        assert state["vart_named"] == [], f"{name}: left behind\n{context}"
    assert result["leftovers_1"] == {}, f"first disable left state behind\n{context}"
    assert result["leftovers_2"] == {}, f"second disable left state behind\n{context}"
