"""Where things are, for every test: the repository, its test data and ../shared/bench, and
the repository's scripts loaded as modules (:func:`load_script`)."""
import importlib.util
from pathlib import Path

#: The repository root (the extension root).
REPO = Path(__file__).resolve().parents[2]
#: Test fixtures: URDF robots (``urdf/``, ``arm6/``, ``rover/``, ``gantry.urdf``), bad files
#: (``bad/``) and the script that writes them (``make_fixtures.py``).
DATA = REPO / "tests" / "data"
#: The benchmark problems shared with the peers (``../shared/bench``), beside the repository.
SHARED_BENCH = REPO.parent / "shared" / "bench"


def load_script(relpath: str, name: str):
    """The repository's script at ``relpath`` (``"demo/demo.py"``, ``"tools/make_assets.py"``)
    loaded as a module named ``name`` (scripts are not packages: not importable by name)."""
    spec = importlib.util.spec_from_file_location(name, REPO / relpath)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
