"""Validation of plain property values read from ``ob["vart"]`` (after ``to_dict()``).

Every checker takes the value, the object's name and the key path (for the message) and returns
a clean Python value or raises :class:`~.errors.SchemaError`. Numbers: a float, or an int that a
person typed by hand (converted; the writers always store floats). A bool is never a number.
Bools: ``True``/``False`` (how Blender >= 4.0 stores them), or the ints 0/1 of older files.
"""
from __future__ import annotations

import math

import bpy
import numpy as np

from ..solver.validate import MAX_MAGNITUDE
from .errors import SchemaError

_RIGID_TOL = 1e-6  # orthonormality tolerance of a stored 4x4 pose (float rounding, hand edits)


def _kind(value) -> str:
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "a group"
    if isinstance(value, (list, tuple)):
        return f"{len(value)} values"
    if isinstance(value, bpy.types.ID):
        return f"the {type(value).__name__.lower()} {value.name!r}"
    return f"a {type(value).__name__}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def group(value, obj, path) -> dict:
    """A property group (dict)."""
    if not isinstance(value, dict):
        raise SchemaError(obj, path, f"expected a group, got {_kind(value)}")
    return value


def known_keys(d: dict, allowed, obj, path):
    """Every key of ``d`` must be one of ``allowed`` (catches typos in hand edits)."""
    for k in d:
        if k not in allowed:
            raise SchemaError(obj, path + (k,), "unknown key; known keys: " + ", ".join(allowed))


def number(value, obj, path, *, nonneg: bool = False) -> float:
    """A finite float (>= 0 when ``nonneg``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError(obj, path, f"expected a float, got {_kind(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise SchemaError(obj, path, f"must be finite, got {x}")
    if nonneg and x < 0:
        raise SchemaError(obj, path, f"must be >= 0, got {x}")
    return x


def numbers(value, n: int, obj, path, *, inf_ok: bool = False) -> tuple:
    """Exactly ``n`` floats, finite (or +-inf when ``inf_ok``), never NaN; without
    ``inf_ok``, none beyond :data:`~vart_addon.solver.validate.MAX_MAGNITUDE` (a length or a
    configuration no scene can hold)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and n == 1:
        value = [value]  # a 1-DoF value stored as a scalar by hand
    if not isinstance(value, (list, tuple)):
        raise SchemaError(obj, path, f"expected {_plural(n, 'float')}, got {_kind(value)}")
    if len(value) != n:
        raise SchemaError(obj, path, f"expected {_plural(n, 'float')}, got {len(value)}")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SchemaError(obj, path, f"entry {i}: expected a float, got {_kind(v)}")
        x = float(v)
        if math.isnan(x) or (not inf_ok and math.isinf(x)):
            raise SchemaError(obj, path, f"entry {i}: must be finite, got {x}")
        if not inf_ok and abs(x) > MAX_MAGNITUDE:
            raise SchemaError(obj, path, f"entry {i}: {x:g} is beyond the {MAX_MAGNITUDE:g} "
                              "(m, rad) a scene can hold")
        out.append(x)
    return tuple(out)


def flag(value, obj, path) -> bool:
    """A bool (or the ints 0 and 1)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise SchemaError(obj, path, f"expected a bool, got {_kind(value)}")


def flags(value, n: int, obj, path) -> tuple:
    """Exactly ``n`` bools."""
    if not isinstance(value, (list, tuple)):
        raise SchemaError(obj, path, f"expected {_plural(n, 'bool')}, got {_kind(value)}")
    if len(value) != n:
        raise SchemaError(obj, path, f"expected {_plural(n, 'bool')}, got {len(value)}")
    return tuple(flag(v, obj, path + (i,)) for i, v in enumerate(value))


def text(value, obj, path, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise SchemaError(obj, path, f"expected a non-empty string, got {_kind(value)}")
    return value


def integer(value, obj, path) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(obj, path, f"expected an integer, got {_kind(value)}")
    return value


def pose(value, obj, path) -> tuple:
    """16 floats, row-major, forming a rigid transform (rotation orthonormal within 1e-6,
    determinant +1, last row 0 0 0 1)."""
    m = numbers(value, 16, obj, path)
    R = [m[0:3], m[4:7], m[8:11]]
    for i in range(3):
        for j in range(3):
            d = sum(R[k][i] * R[k][j] for k in range(3)) - (1.0 if i == j else 0.0)
            if abs(d) > _RIGID_TOL:
                raise SchemaError(obj, path, "not a rigid transform: the rotation part "
                                  "(rows 1-3, columns 1-3) must be orthonormal")
    det = (R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1])
           - R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0])
           + R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]))
    if det < 0:
        raise SchemaError(obj, path, "not a rigid transform: the rotation is a reflection")
    if max(abs(a - b) for a, b in zip(m[12:], (0.0, 0.0, 0.0, 1.0))) > _RIGID_TOL:
        raise SchemaError(obj, path, "not a rigid transform: the last row must be 0 0 0 1")
    return m


def object_or_none(value, obj, path):
    """An Object ID pointer, or None."""
    if value is None or isinstance(value, bpy.types.Object):
        return value
    raise SchemaError(obj, path, f"expected an object or nothing, got {_kind(value)}")


def plain_floats(v):
    """Numbers (any nesting) -> a flat list of floats; anything else is passed through."""
    if type(v) is list:  # the common flat list (a joint's q from tolist()): no numpy trip
        try:
            return [float(x) for x in v]
        except (TypeError, ValueError):
            pass
    try:
        return [float(x) for x in np.asarray(v, dtype=float).reshape(-1)]
    except (TypeError, ValueError):
        return v
