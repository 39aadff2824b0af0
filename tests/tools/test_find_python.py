"""tools/find_python.py finds a working interpreter of a version, or says where it looked."""
import os
import subprocess
import sys

import find_python as F  # tools/find_python.py (tools/ is on sys.path: pyproject)
from repo_paths import REPO

TOOL = REPO / "tools" / "find_python.py"


def test_the_running_interpreter_is_found_for_its_own_version():
    version = "%d.%d" % sys.version_info[:2]
    found = F.find(version)
    assert found is not None and F.runs_as(found, version)


def test_an_explicit_interpreter_comes_first_and_a_broken_one_is_passed_over(tmp_path, monkeypatch):
    version = "%d.%d" % sys.version_info[:2]
    broken = tmp_path / f"python{version}"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    monkeypatch.setenv("PYTHON" + version.replace(".", ""), str(broken))
    assert F.candidates(version)[0] == str(broken)
    assert not F.runs_as(str(broken), version)
    assert F.find(version) != str(broken)


def test_a_missing_version_is_an_error_naming_what_was_tried(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path), PYENV_ROOT=str(tmp_path))
    out = subprocess.run([sys.executable, str(TOOL), "3.99"], capture_output=True, text=True,
                         env=env)
    assert out.returncode == 1 and out.stdout == ""
    assert "no working Python 3.99 found (tried: " in out.stderr
    assert "PYTHON399=" in out.stderr
