"""Where the mesh files a URDF names are: ``package://``, ``file://``, relative and absolute.

Pure Python (no bpy), so it is tested on its own (``tests/formats/test_mesh_paths.py``).

A URDF names meshes as written by its author, for the ROS tools of their machine:

- ``package://pkg/sub/file.stl`` (or ``$(find pkg)/sub/file.stl``, left by xacro-style tools in
  a URDF): ``sub/file.stl`` inside ROS package ``pkg``. Without ROS we
  look for a folder named ``pkg`` holding ``sub/file.stl`` (1) among the URDF's folder and its
  parents (a description package is usually ``pkg/urdf/robot.urdf`` next to ``pkg/meshes``),
  (2) inside each of those folders (``<dir>/pkg/sub/file.stl``: a workspace's ``src``), (3) the
  same two for each user search path, and (4) for each entry of ``ROS_PACKAGE_PATH`` and
  ``<prefix>/share`` of ``AMENT_PREFIX_PATH`` when ``use_env``. Last resort (a package folder
  renamed by a download, e.g. ``pkg-main``): ``sub/file.stl`` directly below the URDF's folder,
  its parents and the search paths.
- ``file:///abs/file.stl`` (URL-quoted) and absolute paths: that file (then the same name
  relative to the search paths, for a file moved from another machine).
- a relative path: against the URDF's folder, then its parents, then the search paths.

A user search path may be a package folder itself or a folder holding packages. The first
existing regular file wins; :func:`resolve` also returns every path it tried, for the report.

A name that leaves its package is refused without a look (``Resolution.refused`` says why):
``package://pkg/../../elsewhere/x.stl``, or a relative path that climbs above the nearest
folder holding a ``package.xml`` around the URDF.
"""
from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from ...solver.text import listed

__all__ = ["Resolution", "resolve", "split_search_paths", "env_search_paths", "package_root",
           "find_package", "MESH_FORMATS"]

#: Mesh file extensions the importer can read (lower case); others are reported.
MESH_FORMATS = (".stl", ".obj", ".ply", ".dae")


@dataclass
class Resolution:
    """The result of :func:`resolve`: ``path`` (absolute, normalised) or None, and the paths
    tried in order (for a "not found" report)."""

    filename: str
    path: Optional[str] = None
    tried: list = field(default_factory=list)
    #: Why the name was not looked up at all (it leaves its package), or "".
    refused: str = ""

    @property
    def found(self) -> bool:
        return self.path is not None

    def describe(self, limit: int = 4) -> str:
        """One line: where the file was found, or where it was looked for."""
        if self.path is not None:
            return f"{self.filename!r} -> {self.path}"
        if self.refused:
            return f"{self.filename!r} refused: {self.refused}"
        where = listed(self.tried, limit)
        return f"{self.filename!r} not found (looked in {where or 'no place'})"


def split_search_paths(text: str) -> list[str]:
    """A user's search path text -> folders: separated by ``os.pathsep`` (``:`` or ``;``),
    ``;`` or newlines; blanks dropped, ``~`` expanded."""
    if not text:
        return []
    parts = text.replace("\n", ";").replace(os.pathsep, ";").split(";")
    return [os.path.expanduser(p.strip()) for p in parts if p.strip()]


def env_search_paths(environ=None) -> list[str]:
    """Package folders of the ROS environment: ``ROS_PACKAGE_PATH`` entries and
    ``<prefix>/share`` for each ``AMENT_PREFIX_PATH`` entry."""
    env = os.environ if environ is None else environ
    out = [p for p in env.get("ROS_PACKAGE_PATH", "").split(os.pathsep) if p]
    out += [os.path.join(p, "share") for p in env.get("AMENT_PREFIX_PATH", "").split(os.pathsep)
            if p]
    return out


def _parents(folder: Optional[str]) -> list[str]:
    """``folder`` and its parents up to the root, nearest first."""
    if not folder:
        return []
    out, cur = [], os.path.abspath(folder)
    while True:
        out.append(cur)
        up = os.path.dirname(cur)
        if up == cur:
            return out
        cur = up


def _split(rel: str) -> list[str]:
    return [p for p in rel.replace("\\", "/").split("/") if p and p != "."]


def resolve(filename: str, urdf_path: Optional[str] = None, search_paths: Sequence[str] = (),
            *, use_env: bool = True, environ=None) -> Resolution:
    """Find the file a URDF ``<mesh filename>`` names (see the module doc for the order).
    ``urdf_path`` is the URDF file (None for text without a file)."""
    res = Resolution(filename)
    seen: set = set()
    base = os.path.dirname(os.path.abspath(urdf_path)) if urdf_path else None
    parents = _parents(base)
    search = [os.path.abspath(os.path.expanduser(p)) for p in search_paths if p]
    env = [os.path.abspath(p) for p in env_search_paths(environ)] if use_env else []

    def attempt(path: str) -> bool:
        path = os.path.normpath(path)
        if path in seen:
            return False
        seen.add(path)
        res.tried.append(path)
        if os.path.isfile(path):
            res.path = path
            return True
        return False

    def first(paths: Iterable[str]) -> Resolution:
        for p in paths:
            if attempt(p):
                break
        return res

    name = filename.strip()
    find = re.match(r"\$\(find\s+([^)\s]+)\)/*(.*)", name)
    if find:  # xacro's $(find pkg)/rest, left unexpanded in a URDF: package://pkg/rest
        name = f"package://{find[1]}/{find[2]}"
    low = name.lower()
    if low.startswith("package://"):
        parts = _split(name[len("package://"):])
        if len(parts) < 2:
            return res
        pkg, rel = parts[0], os.path.join(*parts[1:])
        if os.path.normpath(rel).split(os.sep)[0] == os.pardir:
            res.refused = f"the path leaves package '{pkg}'"
            return res

        def in_package(dirs):
            for d in dirs:
                if os.path.basename(d) == pkg:
                    yield os.path.join(d, rel)
                yield os.path.join(d, pkg, rel)

        def below(dirs):
            for d in dirs:
                yield os.path.join(d, rel)

        return first([*in_package(parents), *in_package(search), *in_package(env),
                      *below(parents), *below(search)])
    if low.startswith("file://"):
        name = urllib.parse.unquote(urllib.parse.urlparse(name).path)
        if os.name == "nt" and len(name) > 2 and name[0] == "/" and name[2] == ":":
            name = name[1:]  # file:///C:/x -> C:/x
    parts = _split(name)
    if not parts:
        return res
    if os.path.isabs(name):
        return first([name] + [os.path.join(d, *parts[-k:]) for k in (1, 2) if len(parts) >= k
                               for d in search])
    rel = os.path.join(*parts)
    root = package_root(base)
    if root is not None and base is not None:
        inside = os.path.normpath(os.path.join(base, rel))
        if os.path.commonpath([root, inside]) != root:
            res.refused = f"the path leaves package '{os.path.basename(root)}' ({root})"
            return res
    return first([os.path.join(d, rel) for d in [*parents, *search]])


def find_package(pkg: str, near: Optional[str] = None, search_paths: Sequence[str] = (),
                 *, use_env: bool = True, environ=None) -> Optional[str]:
    """The folder of ROS package ``pkg`` (what ``$(find pkg)`` means in a xacro file), looked
    for as ``package://`` names are: a folder named ``pkg`` among the folder of the file
    ``near`` and its parents, inside each of them, then the same for each search path and
    ROS_PACKAGE_PATH / AMENT_PREFIX_PATH (``use_env``). A folder holding a ``package.xml``
    whose ``<name>`` is ``pkg`` counts too (a package folder renamed by a download).
    None if not found."""
    base = os.path.dirname(os.path.abspath(near)) if near else None
    dirs = [*_parents(base), *(os.path.abspath(os.path.expanduser(p)) for p in search_paths
                               if p)]
    if use_env:
        dirs += [os.path.abspath(p) for p in env_search_paths(environ)]
    for d in dirs:
        for cand in (d, os.path.join(d, pkg)):
            if os.path.basename(cand) == pkg and os.path.isdir(cand):
                return cand
    for d in _parents(base):
        if _package_name(d) == pkg:
            return d
    return None


def _package_name(folder: str) -> Optional[str]:
    """The ``<name>`` of the ``package.xml`` in ``folder``, or None."""
    import xml.etree.ElementTree as ET
    try:
        name = ET.parse(os.path.join(folder, "package.xml")).getroot().findtext("name")
    except (OSError, ET.ParseError):
        return None
    return None if name is None else name.strip()


def package_root(folder: Optional[str]) -> Optional[str]:
    """The nearest folder at or above ``folder`` that holds a ROS ``package.xml``, or None."""
    for d in _parents(folder):
        if os.path.isfile(os.path.join(d, "package.xml")):
            return d
    return None
