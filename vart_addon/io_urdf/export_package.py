"""The meshes of a URDF export, in a folder of its own beside the file: a self-contained
package (:mod:`.exporter`).

Every mesh the exported URDF names is a file in ``meshes/`` beside it, named by a path
relative to the URDF (``meshes/base_link.stl``), one flat folder with a file name used once:

- geometry written from the scene: binary (or ASCII) STL in the link frame;
- an imported mesh file kept as it is: STL and OBJ files are copied (MuJoCo reads both);
  Collada (``.dae``) is converted to STL (its triangles as vart reads them,
  :func:`vart_addon.formats.collada.read_collada`: node transforms and ``<unit meter>``
  applied), since MuJoCo reads no Collada; another format is not kept (the caller writes the
  geometry itself, or leaves a collision out, with a warning);
- one source file copied once, however many visuals and collisions name it.

So the export re-imports from its own folder with every mesh, Pinocchio loads it with the
folder as its package directory, and MuJoCo loads the URDF as it is. :meth:`MeshPackage.write`
writes every file atomically and returns their paths.
"""
from __future__ import annotations

import os
import re

import numpy as np

from ..formats import stl
from ..formats.atomic import write_atomic
from ..formats.collada import ColladaError, read_collada

#: The folder beside the URDF that holds its meshes.
MESH_FOLDER = "meshes"
#: Mesh formats copied as they are (MuJoCo and Pinocchio read them).
COPIED = (".stl", ".obj")


def safe_name(name: str) -> str:
    """A file-name-safe version of a name."""
    out = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")
    return out or "mesh"


class MeshPackage:
    """The mesh files of one export into ``folder`` (see the module doc)."""

    def __init__(self, folder: str, binary: bool = True):
        self.folder, self.binary = folder, binary
        self.files: list[tuple[str, bytes]] = []  # (file name in MESH_FOLDER, contents)
        self._used: set[str] = set()
        self._kept: dict[str, str | None] = {}  # source path -> its relative name (or None)

    def _name(self, base: str, ext: str) -> str:
        base = safe_name(base)
        name, k = base + ext, 1
        while name.lower() in self._used:
            name = f"{base}_{k}{ext}"
            k += 1
        self._used.add(name.lower())
        return name

    def _add(self, base: str, ext: str, data: bytes) -> str:
        name = self._name(base, ext)
        self.files.append((name, data))
        return f"{MESH_FOLDER}/{name}"

    def add_stl(self, base: str, vertices, triangles, label: str) -> str:
        """Triangles (link frame, m) as an STL file named after ``base``; its relative path."""
        return self._add(base, ".stl", stl.stl_bytes(vertices, triangles, binary=self.binary,
                                                     name=label))

    def keep(self, source: str, warnings: list) -> str | None:
        """The relative path of source mesh file ``source`` in the package (copied, or a
        Collada file converted to STL), or None when it cannot be kept (a warning says why)."""
        if source in self._kept:
            return self._kept[source]
        stem, ext = os.path.splitext(os.path.basename(source))
        ext = ext.lower()
        out: str | None = None
        try:
            if ext in COPIED:
                with open(source, "rb") as f:
                    out = self._add(stem, ext, f.read())
            elif ext == ".dae":
                parts = read_collada(source)
                v = np.concatenate([p.vertices for p in parts]) if parts else np.zeros((0, 3))
                offsets = np.cumsum([0] + [len(p.vertices) for p in parts[:-1]])
                t = np.concatenate([p.triangles + o for p, o in zip(parts, offsets)]) \
                    if parts else np.zeros((0, 3), int)
                out = self.add_stl(stem, v, t, stem) if len(t) else None
            else:
                warnings.append(f"mesh {source!r}: {ext or 'its'} format is not one MuJoCo "
                                "reads; not kept")
        except (OSError, ColladaError) as e:
            warnings.append(f"mesh {source!r} cannot be read ({e}); not kept")
            out = None
        self._kept[source] = out
        return out

    def write(self) -> list[str]:
        """Write every file into ``folder/meshes`` (atomically); their absolute paths. Raises
        OSError naming the folder or file."""
        if not self.files:
            return []
        where = os.path.join(self.folder, MESH_FOLDER)
        try:
            os.makedirs(where, exist_ok=True)
        except OSError as e:
            raise OSError(f"cannot write '{where}': {e.strerror or e}") from None
        out = []
        for name, data in self.files:
            path = os.path.join(where, name)
            write_atomic(path, data, "mesh")
            out.append(path)
        return out
