"""Collada (``.dae``) geometry without Blender, read with pycollada.

Blender 5.0 removed its Collada importer, and robots ship hundreds of ``.dae`` meshes (UR5,
Panda, ANYmal, Baxter, iCub, ...). :func:`read_collada` gives a file's triangles as ROS's
RViz shows them:

- every ``<instance_geometry>`` of the visual scene, with its node transforms applied;
- scaled by the file's ``<unit meter>`` to metres;
- ``<up_axis>`` ignored, as RViz ignores it: a ``Y_UP`` file's coordinates are used as they
  are (the URDF's ``<origin>`` is what turns a mesh; robots are modelled for RViz);
- one :class:`MeshPart` per material, with its diffuse colour (RGBA) when it has one;
- COLLADA 1.4.0 and 1.4.1 alike; a broken material or image reference is passed over (the
  geometry still reads); a file whose scene instantiates nothing gives its geometries as
  they are.

pycollada is a run-time dependency: the extension ships it as a wheel (the manifest's
``wheels``); without it, :class:`ColladaError` says so.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numpy as np


class ColladaError(ValueError):
    """A ``.dae`` file that cannot be read; the message names the file."""


@dataclass
class MeshPart:
    """The triangles of one material: ``vertices`` (n, 3) float64 in metres in the file's
    frame, ``triangles`` (m, 3) indices into them, ``rgba`` the material's diffuse colour
    (or None: no colour, or a texture), ``material`` its name."""

    vertices: np.ndarray
    triangles: np.ndarray
    rgba: tuple | None
    material: str


def _colour(material) -> tuple | None:
    effect = getattr(material, "effect", None)
    diffuse = getattr(effect, "diffuse", None)
    if isinstance(diffuse, tuple) and len(diffuse) in (3, 4):
        rgba = tuple(float(c) for c in diffuse) + ((1.0,) if len(diffuse) == 3 else ())
        if all(np.isfinite(rgba)):
            return tuple(min(max(c, 0.0), 1.0) for c in rgba)
    return None


def _triangle_sets(primitives):
    """The triangle sets among ``primitives`` (polylists and polygons triangulated; lines
    and points passed over)."""
    for prim in primitives:
        if hasattr(prim, "triangleset"):  # polylists and polygons
            prim = prim.triangleset()
        index = getattr(prim, "vertex_index", None)
        if index is not None and prim.vertex is not None and np.ndim(index) == 2 and \
                np.shape(index)[1] == 3 and len(index):
            yield prim


def read_collada(path) -> list[MeshPart]:
    """The triangles of a ``.dae`` file by material (see the module doc). ColladaError
    naming the file if it cannot be read or holds no triangles."""
    name = os.path.basename(os.fspath(path))
    try:
        import collada
    except ImportError:
        raise ColladaError(f"{name}: reading Collada needs pycollada, which ships with the "
                           "vart extension (reinstall it, or pip install pycollada)") from None
    with warnings.catch_warnings():  # pycollada uses numpy.matrix (a PendingDeprecation)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return _read(collada, path, name)


def _read(collada, path, name: str) -> list[MeshPart]:
    ignore = [collada.common.DaeUnsupportedError, collada.common.DaeBrokenRefError]
    try:
        doc = collada.Collada(os.fspath(path), ignore=ignore)
    except Exception as e:  # pycollada raises many kinds (XML, Dae*, Key, Value, ...)
        raise ColladaError(f"{name}: not a readable Collada file ({type(e).__name__}: "
                           f"{e})") from None
    unit = float(doc.assetInfo.unitmeter or 1.0)
    bound = [] if doc.scene is None else list(doc.scene.objects("geometry"))
    prims = [p for g in bound for p in _triangle_sets(g.primitives())]
    if not prims:  # nothing instantiated (or the instances were broken): the geometries
        prims = [p for g in doc.geometries
                 for p in _triangle_sets(g.bind(np.eye(4), {}).primitives())]
    by_material: dict[str, list] = {}
    for p in prims:
        mat = getattr(p, "material", None)
        key = getattr(mat, "id", None) or getattr(mat, "name", None) or ""
        by_material.setdefault(key, []).append(p)
    parts = []
    for key, group in by_material.items():
        vertices, triangles, offset = [], [], 0
        for p in group:
            v = np.asarray(p.vertex, dtype=float).reshape(-1, 3)
            t = np.asarray(p.vertex_index, dtype=np.int64).reshape(-1, 3)
            vertices.append(v)
            triangles.append(t + offset)
            offset += len(v)
        v = np.concatenate(vertices) * unit
        if not np.isfinite(v).all():
            raise ColladaError(f"{name}: vertex coordinates are not finite")
        parts.append(MeshPart(v, np.concatenate(triangles), _colour(getattr(group[0],
                                                                         "material", None)),
                              key))
    if not parts:
        raise ColladaError(f"{name}: no triangles in the file")
    return parts
