"""Display units of per-DoF values (``vart.operate_joint``'s ``value``, ``vart.set_limits``'s
``lower``/``upper``, the sidebar's sliders).

An angle is in degrees when the scene's rotation unit is degrees (the default), else radians;
a length is in the scene's length unit (metres times the unit scale), or Blender units when
the unit system is None. Internally joints use metres and radians.
"""
from __future__ import annotations

import math

import numpy as np

from ..solver.joint_types import CATALOG


def _factors(jtype: str, scene) -> np.ndarray:
    """Display value = internal value * factor, per DoF of ``jtype``."""
    units = scene.unit_settings
    angle = math.degrees(1.0) if units.system_rotation == 'DEGREES' else 1.0
    length = units.scale_length if units.system != 'NONE' else 1.0
    return np.where(CATALOG[jtype].is_angular(), angle, length)


def to_internal(values, jtype: str, scene) -> list[float]:
    """Per-DoF display values (at least dof of them; extra ones are ignored) -> m and rad."""
    n = CATALOG[jtype].dof
    v = np.asarray(list(values)[:n], dtype=float)
    return (v / _factors(jtype, scene)).tolist()


def to_display(q, jtype: str, scene) -> list[float]:
    """Per-DoF internal values (m, rad) -> display values."""
    return (np.asarray(q, dtype=float) * _factors(jtype, scene)).tolist()


def same32(a, b) -> bool:
    """True if two numbers are the same single-precision value (operator fields are float32,
    so a dialog confirmed unchanged gives back the stored value rounded)."""
    try:
        return bool(np.float32(a) == np.float32(b))
    except (TypeError, ValueError, OverflowError):
        return False


def keep_stored(internal, display, stored, to_disp=None) -> list[float]:
    """``internal`` values, except entries whose ``display`` field equals (in float32) the
    display of the ``stored`` value: those keep the stored value exactly. ``to_disp`` maps
    stored values to display values (default: the identity)."""
    out = list(internal)
    try:
        cur = list(stored)
        shown = cur if to_disp is None else list(to_disp(cur))
    except (TypeError, ValueError):
        return out
    for i in range(min(len(out), len(cur), len(shown))):
        if same32(display[i], shown[i]) and isinstance(cur[i], float):
            out[i] = cur[i]
    return out


def pad6(values, fill: float = 0.0) -> list[float]:
    """Values padded to the 6 entries of an operator's vector field."""
    v = list(values)[:6]
    return v + [fill] * (6 - len(v))
