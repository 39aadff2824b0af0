"""Where things are, for every test: the repository, its test data and ../shared/bench."""
from pathlib import Path

#: The repository root (the extension root).
REPO = Path(__file__).resolve().parents[2]
#: Test fixtures: URDF robots (``urdf/``, ``arm6/``, ``rover/``, ``gantry.urdf``), bad files
#: (``bad/``) and the script that writes them (``make_fixtures.py``).
DATA = REPO / "tests" / "data"
#: The benchmark problems shared with the peers (``../shared/bench``), beside the repository.
SHARED_BENCH = REPO.parent / "shared" / "bench"
