"""Find a working Python interpreter of one minor version (a dev tool, not shipped).

    python tools/find_python.py 3.13     # prints the interpreter's path, exit 0
                                         # or says where it looked, on stderr, exit 1

Each supported Blender runs one Python (4.2 to 5.0: 3.11; 5.1 and newer: 3.13) and bpy from
PyPI installs only into that version. The Makefile asks this tool for the interpreter of the
Blender it builds a venv for. Candidates, in order: ``$PYTHON<major><minor>`` (for example
``PYTHON313=/opt/py/bin/python3.13``), ``python3.13`` on PATH, pyenv's versions
(``$PYENV_ROOT/versions/3.13.*``, default ``~/.pyenv``), then the usual prefixes
(``/usr/local/bin``, ``/usr/bin``, ``/opt/homebrew/bin``). A candidate counts only if it runs
and reports that version: pyenv's shim for an inactive version is on PATH yet fails.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path


def candidates(version: str) -> list[str]:
    """Interpreter paths worth trying for ``version`` ('3.13'), best first, without repeats."""
    name = f"python{version}"
    found: list[str] = []
    explicit = os.environ.get("PYTHON" + version.replace(".", ""))
    if explicit:
        found.append(explicit)
    on_path = shutil.which(name)
    if on_path:
        found.append(on_path)
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    # Newest patch release first: 3.13.10 sorts after 3.13.9 by its numbers, not its text.
    def patch(path: str) -> tuple[int, ...]:
        tail = Path(path).parents[1].name.split(".")
        return tuple(int(part) for part in tail if part.isdigit())
    found += sorted(glob.glob(str(pyenv_root / "versions" / f"{version}.*" / "bin" / name)),
                    key=patch, reverse=True)
    found += [str(Path(prefix) / name) for prefix in ("/usr/local/bin", "/usr/bin", "/opt/homebrew/bin")]
    unique: list[str] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def runs_as(path: str, version: str) -> bool:
    """Whether ``path`` starts and reports Python ``version``."""
    try:
        out = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.strip() == version


def find(version: str) -> str | None:
    """The first candidate that runs as ``version``, or None."""
    for path in candidates(version):
        if runs_as(path, version):
            return path
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].count(".") != 1:
        print("usage: find_python.py MAJOR.MINOR", file=sys.stderr)
        return 2
    version = argv[0]
    path = find(version)
    if path is None:
        tried = ", ".join(candidates(version)) or "nothing"
        print(f"no working Python {version} found (tried: {tried}); install it (pyenv install "
              f"{version}, or your system's python{version} package) or name it with "
              f"PYTHON{version.replace('.', '')}=/path/to/python{version}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
