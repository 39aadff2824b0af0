"""A small STL writer and reader (numpy only; no bpy).

:func:`write_stl` writes triangles (binary by default, or ASCII) atomically
(:func:`.atomic.write_atomic`), so a failure never leaves a half-written mesh.
:func:`read_stl` reads both kinds back (for tests and checks), as float32 vertices per
triangle like every STL. Units are whatever the caller's coordinates are (vart writes
metres, as URDF meshes are).
"""
from __future__ import annotations

import struct

import numpy as np

from .atomic import write_atomic

__all__ = ["write_stl", "read_stl", "stl_bytes"]


def _normals(tri: np.ndarray) -> np.ndarray:
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    return np.divide(n, length, out=np.zeros_like(n), where=length > 0)


def _triangles(vertices, triangles) -> np.ndarray:
    v = np.asarray(vertices, dtype=float).reshape(-1, 3)
    t = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if not np.isfinite(v).all():
        raise ValueError("STL: vertices are not finite")
    if t.size and (t.min() < 0 or t.max() >= len(v)):
        raise ValueError("STL: a triangle refers to a vertex that does not exist")
    return v[t]


def stl_bytes(vertices, triangles, *, binary: bool = True, name: str = "vart") -> bytes:
    """The STL file content of ``triangles`` (m x 3 indices into ``vertices``, n x 3)."""
    tri = _triangles(vertices, triangles)
    normals = _normals(tri)
    if binary:
        header = f"binary STL {name}".encode("ascii", "replace")[:80].ljust(80, b" ")
        rec = np.zeros(len(tri), dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                 ("attr", "<u2")]))
        rec["n"], rec["v"] = normals, tri
        return header + struct.pack("<I", len(tri)) + rec.tobytes()
    safe = "".join(c if c.isalnum() or c in "_-." else "_" for c in name) or "vart"
    lines = [f"solid {safe}"]
    for n, t in zip(normals, tri):
        lines.append(f"  facet normal {n[0]:.9g} {n[1]:.9g} {n[2]:.9g}\n    outer loop")
        lines.extend(f"      vertex {p[0]:.9g} {p[1]:.9g} {p[2]:.9g}" for p in t)
        lines.append("    endloop\n  endfacet")
    lines.append(f"endsolid {safe}\n")
    return "\n".join(lines).encode("ascii")


def write_stl(path, vertices, triangles, *, binary: bool = True, name: str = "vart") -> None:
    """Write an STL file atomically (see :func:`stl_bytes`; OSError names the path)."""
    write_atomic(path, stl_bytes(vertices, triangles, binary=binary, name=name), "STL mesh")


def read_stl(path) -> np.ndarray:
    """Triangles of an STL file, ``(m, 3, 3)`` float64 (from float32 for binary files).
    Raises ValueError for a file that is neither valid binary nor ASCII STL."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) >= 84:
        (count,) = struct.unpack_from("<I", data, 80)
        if len(data) == 84 + 50 * count:
            rec = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                      ("attr", "<u2")]), count=count, offset=84)
            return rec["v"].astype(float)
    text = data.decode("ascii", "replace")
    if not text.lstrip().startswith("solid"):
        raise ValueError(f"{path}: not an STL file")
    verts = [[float(x) for x in line.split()[1:4]] for line in text.splitlines()
             if line.strip().startswith("vertex")]
    if len(verts) % 3:
        raise ValueError(f"{path}: ASCII STL with a vertex count that is not a multiple of 3")
    return np.array(verts, dtype=float).reshape(-1, 3, 3)
