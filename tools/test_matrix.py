"""Run the whole test suite on every supported Blender (a dev tool, not shipped; `make test-all`).

    python tools/test_matrix.py 4.2 4.5 5.0 5.2

For each Blender version in turn: find the Python it needs (tools/find_python.py), then
`make test BLENDER=<version>`, which makes or reuses that version's venv in
``.venvs/blender-<version>``. A version whose Python is not on this machine is skipped with
the reason. The summary at the end has one line per version (its result and pytest's own
count line) and a last line with the counts of all versions together; the exit status is 0
only if every version that ran passed and at least one ran.
Set ``VART_REQUIRE_ALL=1`` to make a skipped version an error too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import find_python  # noqa: E402  (a sibling dev tool, not an installed package)

# The Python each supported Blender runs (the Makefile's PYTHON_VERSION says the same).
PYTHON_OF = {"4.2": "3.11", "4.5": "3.11", "5.0": "3.11", "5.2": "3.13"}
_COUNTS = re.compile(r"^=*\s*(\d+ (passed|failed|error|errors|skipped).*?)\s*=*$")


def _make() -> str:
    return os.environ.get("MAKE", "make")


def count(summary: str, word: str) -> int:
    """The number pytest's summary line gives for ``word`` ('passed', 'failed', ...)."""
    match = re.search(rf"(\d+) {word}\b", summary)
    return int(match.group(1)) if match else 0


def run_version(blender: str) -> tuple[str, str]:
    """Run the suite on ``blender``; return (result word, detail line)."""
    python_version = PYTHON_OF[blender]
    python = os.environ.get("PYTHON") or find_python.find(python_version)
    if python is None:
        tried = ", ".join(find_python.candidates(python_version))
        return "SKIPPED", f"no Python {python_version} on this machine (tried {tried})"
    command = [_make(), "--no-print-directory", "test", f"BLENDER={blender}", f"PYTHON={python}"]
    print(f"\n=== Blender {blender} (Python {python_version}: {python}) ===", flush=True)
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, bufsize=1)
    counts = ""
    assert process.stdout is not None
    for line in process.stdout:
        sys.stdout.write(line)
        match = _COUNTS.match(line.strip())
        if match:
            counts = match.group(1)
    code = process.wait()
    seconds = time.monotonic() - started
    detail = f"{counts or 'no pytest summary'} ({seconds:.0f} s in all, venv included)"
    return ("PASSED" if code == 0 else "FAILED"), detail


def main(argv: list[str]) -> int:
    versions = argv or list(PYTHON_OF)
    unknown = [v for v in versions if v not in PYTHON_OF]
    if unknown:
        print(f"unsupported Blender version(s): {', '.join(unknown)}; choose from "
              f"{', '.join(PYTHON_OF)}", file=sys.stderr)
        return 2
    results = {v: run_version(v) for v in versions}
    print("\n=== test-all: one line per Blender ===")
    for blender, (word, detail) in results.items():
        print(f"Blender {blender:4} {word:8} {detail}")
    totals = {w: sum(count(d, w) for _, d in results.values())
              for w in ("passed", "failed", "errors", "error", "skipped")}
    words = [word for word, _ in results.values()]
    ran = [w for w in words if w != "SKIPPED"]
    if "SKIPPED" in words:
        print("Skipped versions were not tested: install their Python to test them.")
    failed = totals["failed"] + totals["errors"] + totals["error"]
    print(f"test-all: {totals['passed']} passed, {failed} failed, {totals['skipped']} skipped")
    if not ran:
        print("error: no Blender version could be tested", file=sys.stderr)
        return 1
    if os.environ.get("VART_REQUIRE_ALL") == "1" and len(ran) < len(words):
        print("error: VART_REQUIRE_ALL=1 and a version was skipped", file=sys.stderr)
        return 1
    return 0 if all(w == "PASSED" for w in ran) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
