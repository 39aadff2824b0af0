"""The wheels the extension ships: fetch them and check the manifest (a dev tool, not shipped).

    python tools/wheels.py fetch    # download into wheels/, for every Python and platform
    python tools/wheels.py check    # the manifest's `wheels` list matches wheels/ and covers all

Blender installs the wheels an extension lists in ``blender_manifest.toml`` (``wheels``) when
it is enabled. vart supports Blenders on two Pythons (4.2 to 5.0: 3.11; 5.1 and newer: 3.13)
and five platforms, so every package in ``requirements/extension-wheels.txt`` must be there as
one pure wheel (``py3-none-any``) or one compiled wheel per Python and platform. numpy is
Blender's own and is never shipped.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "requirements" / "extension-wheels.txt"
WHEELS = ROOT / "wheels"
MANIFEST = ROOT / "blender_manifest.toml"

#: The Pythons the supported Blenders run.
PYTHONS = ("3.11", "3.13")
#: The platforms Blender is built for, as wheel platform tags (Blender's manifest names them
#: linux-x64, macos-arm64, macos-x64, windows-x64, windows-arm64).
PLATFORMS = ("manylinux_2_28_x86_64", "macosx_11_0_arm64", "macosx_10_15_x86_64", "win_amd64",
             "win_arm64")
#: Packages Blender bundles: shipping one would shadow Blender's own.
NEVER_SHIPPED = {"numpy"}
#: (project, Python, platform) that no release of a compiled package covers, with what vart
#: does there instead. Anything else uncovered is an error.
KNOWN_GAPS = {
    ("pyyaml", "3.11", "win_arm64"): "PyYAML publishes no CPython 3.11 wheel for Windows on "
    "ARM: there, a xacro file that loads YAML (xacro.load_yaml) is refused with a message "
    "naming the file; every other xacro file expands",
}


def requirements() -> list[str]:
    """The pinned requirements of the spec file, one line each (comments and blanks dropped,
    lines continued with a backslash joined)."""
    text = re.sub(r"\\\n", " ", SPEC.read_text())
    lines = []
    for line in text.splitlines():
        line = " ".join(line.split("#", 1)[0].split())
        if line:
            lines.append(line)
    return lines


def project_name(requirement_or_wheel: str) -> str:
    """The normalized project name of a requirement line or a wheel file name."""
    text = requirement_or_wheel
    if text.endswith(".whl"):  # name-version-...: the name's own hyphens are written as _
        name = Path(text).name.split("-", 1)[0]
    else:
        name = re.split(r"[=<>!~ ;\[]", text, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_tags(filename: str) -> tuple[str, str, str]:
    """(python, abi, platform) tags of a wheel file name."""
    parts = Path(filename).stem.split("-")
    return parts[-3], parts[-2], parts[-1]


def covers(filename: str, python: str, platform: str) -> bool:
    """Whether the wheel installs on CPython ``python`` ('3.13') on ``platform``."""
    py_tags, abi, plat = wheel_tags(filename)
    cp = "cp" + python.replace(".", "")
    py_ok = any(t in ("py3", cp) or (t.startswith("cp3") and abi == "abi3" and t <= cp)
                for t in py_tags.split("."))
    plat_ok = plat == "any" or any(_platform_covers(t, platform) for t in plat.split("."))
    return py_ok and plat_ok


def _platform_covers(tag: str, platform: str) -> bool:
    """Whether a wheel's platform tag installs on ``platform``: the same tag; any manylinux
    of the same architecture; a macOS wheel for the same architecture and an older or equal
    macOS version."""
    if tag == platform:
        return True
    if tag.startswith("manylinux") and platform.startswith("manylinux"):
        return tag.endswith(platform.split("_", 3)[-1])
    mac = re.fullmatch(r"macosx_(\d+)_(\d+)_(\w+)", tag)
    want = re.fullmatch(r"macosx_(\d+)_(\d+)_(\w+)", platform)
    if mac and want:
        return mac[3] == want[3] and (int(mac[1]), int(mac[2])) <= (int(want[1]), int(want[2]))
    return False


def fetch() -> list[Path]:
    """Download every pinned wheel for every Python and platform into ``wheels/`` (hashes
    checked by pip) and remove wheels that are no longer pinned. Returns the wheels kept."""
    WHEELS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.txt"
        for python in PYTHONS:
            for platform in PLATFORMS:
                spec.write_text("".join(
                    r + "\n" for r in requirements()
                    if (project_name(r), python, platform) not in KNOWN_GAPS))
                cp = "cp" + python.replace(".", "")
                subprocess.run(
                    [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                     "--only-binary=:all:", "--python-version", python, "--implementation",
                     "cp", "--abi", cp, "--abi", "abi3", "--abi", "none", "--platform", platform,
                     "--require-hashes", "-r", str(spec), "-d", str(WHEELS)],
                    check=True)
    wanted = {project_name(r) for r in requirements()}
    kept = []
    for wheel in sorted(WHEELS.glob("*.whl")):
        if project_name(wheel.name) in wanted:
            kept.append(wheel)
        else:
            wheel.unlink()
    return kept


def manifest_wheels() -> list[str]:
    """The manifest's ``wheels`` list (paths relative to the extension root)."""
    with MANIFEST.open("rb") as f:
        return list(tomllib.load(f).get("wheels", []))


def problems() -> list[str]:
    """Everything wrong with the manifest's wheels against the spec and ``wheels/``."""
    found = []
    listed = manifest_wheels()
    names = [Path(w).name for w in listed]
    for entry in listed:
        if not entry.startswith("./wheels/"):
            found.append(f"manifest wheel {entry!r} is not in ./wheels/")
        elif not (ROOT / entry).is_file():
            found.append(f"manifest wheel {entry!r} is missing: run `make wheels`")
    on_disk = sorted(p.name for p in WHEELS.glob("*.whl")) if WHEELS.is_dir() else []
    for name in on_disk:
        if name not in names:
            found.append(f"wheels/{name} is not listed in the manifest")
    pinned = {project_name(r) for r in requirements()}
    for name in names:
        project = project_name(name)
        if project in NEVER_SHIPPED:
            found.append(f"{name}: {project} is bundled with Blender and must not be shipped")
        elif project not in pinned:
            found.append(f"{name}: {project} is not pinned in {SPEC.relative_to(ROOT)}")
    for project in sorted(pinned):
        if project in NEVER_SHIPPED:
            found.append(f"{project} is pinned but Blender bundles it")
        mine = [n for n in names if project_name(n) == project]
        for python in PYTHONS:
            for platform in PLATFORMS:
                if not any(covers(n, python, platform) for n in mine) and \
                        (project, python, platform) not in KNOWN_GAPS:
                    found.append(f"{project}: no wheel in the manifest for Python {python} "
                                 f"on {platform}")
    return found


def main(argv: list[str]) -> int:
    if argv == ["fetch"]:
        for wheel in fetch():
            print(f"wheels/{wheel.name}")
        return 0
    if argv == ["check"]:
        found = problems()
        for line in found:
            print(f"error: {line}", file=sys.stderr)
        return 1 if found else 0
    print("usage: wheels.py fetch|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
