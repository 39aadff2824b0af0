"""Set-up shared by every test.

The repository root is the extension root, so it holds an ``__init__.py``.
Left alone, pytest collects the root as a Package and imports that file as a
module named after the clone directory: it then fails on the relative import
whenever that name is not a valid package name (a CI checkout such as
``vart-ci``). The plugin below makes pytest collect the root as a plain
directory. It has to be registered as a global plugin: pytest does not ask a
directory's own conftest files how to collect that directory.

The root is on ``sys.path`` through ``pythonpath`` in pyproject.toml, so
tests ``import vart_addon`` directly.
"""

from __future__ import annotations

from pathlib import Path

import pytest


class _RootIsNotAPackage:
    """Collect the rootdir as a ``Dir``, never as a ``Package``."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if path.resolve() == parent.config.rootpath.resolve():
            return pytest.Dir.from_parent(parent, path=path)
        return None


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_RootIsNotAPackage(), "vart-root-is-not-a-package")
