"""URDF geometry, appearance and inertia: the shapes, ``Material``, ``Visual``, ``Collision``
and ``Inertial`` of a link.

Frozen, validated dataclasses (pure Python + numpy) built on :mod:`.base`. Import them
through :mod:`vart_addon.formats.urdf.files`.

Units are SI: metres (sizes, radii, lengths), kilograms, kg*m^2. A visual's, collision's or
inertial's ``origin`` is posed in its link frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

from .base import Origin, UrdfError, _check_origin, _finite, _opt_str, _set, _vec, context


@dataclass(frozen=True)
class Box:
    """``<box size>``: edge lengths (m) along x, y, z, centred on the element's origin."""

    size: tuple[float, float, float]
    kind = "box"

    def __post_init__(self):
        _set(self, "size", _vec(self.size, 3, "<box> size"))
        if min(self.size) < 0:
            raise UrdfError(f"<box> size has a negative value: {self.size}")


@dataclass(frozen=True)
class Cylinder:
    """``<cylinder radius length>`` (m), axis along z, centred on the element's origin."""

    radius: float
    length: float
    kind = "cylinder"

    def __post_init__(self):
        for name in ("radius", "length"):
            v = _finite(getattr(self, name), f"<cylinder> {name}")
            if v < 0:
                raise UrdfError(f"<cylinder> {name} is negative: {v}")
            _set(self, name, v)


@dataclass(frozen=True)
class Sphere:
    """``<sphere radius>`` (m), centred on the element's origin."""

    radius: float
    kind = "sphere"

    def __post_init__(self):
        v = _finite(self.radius, "<sphere> radius")
        if v < 0:
            raise UrdfError(f"<sphere> radius is negative: {v}")
        _set(self, "radius", v)


@dataclass(frozen=True)
class Mesh:
    """``<mesh filename scale>``: filename exactly as written (``package://...``, a path relative
    to the URDF file, or absolute); resolving it is the importer's job. Scale per axis, may be
    negative (mirroring)."""

    filename: str
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    kind = "mesh"

    def __post_init__(self):
        if not isinstance(self.filename, str) or not self.filename.strip():
            raise UrdfError("<mesh> filename is empty")
        _set(self, "scale", _vec(self.scale, 3, "<mesh> scale"))


Geometry = Union[Box, Cylinder, Sphere, Mesh]
GEOMETRY_TYPES = (Box, Cylinder, Sphere, Mesh)


def _check_geometry(g: Any) -> None:
    if not isinstance(g, GEOMETRY_TYPES):
        raise UrdfError(f"geometry must be Box, Cylinder, Sphere or Mesh, not {type(g).__name__}")


def _check_placed(shape) -> None:
    """The fields a visual and a collision share: geometry, origin, optional name."""
    _check_geometry(shape.geometry)
    _check_origin(shape.origin)
    _set(shape, "name", _opt_str(shape.name, "name"))


def _rgba(x: Any) -> Optional[tuple[float, ...]]:
    return None if x is None else _vec(x, 4, "<color> rgba")


@dataclass(frozen=True)
class Material:
    """A named ``<material>``: colour (r, g, b, a in 0..1 as written) and/or texture filename."""

    name: str
    rgba: Optional[tuple[float, float, float, float]] = None
    texture: Optional[str] = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise UrdfError("material: missing name")
        with context(f"material '{self.name}'"):
            _set(self, "rgba", _rgba(self.rgba))
            _set(self, "texture", _opt_str(self.texture, "<texture> filename"))


@dataclass(frozen=True, kw_only=True)
class Visual:
    """``<visual>`` of a link; ``origin`` is posed in the link frame.

    ``rgba``/``texture`` are the visual's effective material: written inline in the visual or,
    when the visual only names its material, resolved from the robot's global material (or an
    inline material of that name defined elsewhere, as urdfdom does). Both None: no colour known.
    """

    geometry: Geometry
    origin: Origin = Origin()
    name: Optional[str] = None
    material_name: Optional[str] = None
    rgba: Optional[tuple[float, float, float, float]] = None
    texture: Optional[str] = None

    def __post_init__(self):
        with context("<visual>"):
            _check_placed(self)
            _set(self, "material_name", _opt_str(self.material_name, "<material> name"))
            _set(self, "rgba", _rgba(self.rgba))
            _set(self, "texture", _opt_str(self.texture, "<texture> filename"))


@dataclass(frozen=True, kw_only=True)
class Collision:
    """``<collision>`` of a link; ``origin`` is posed in the link frame."""

    geometry: Geometry
    origin: Origin = Origin()
    name: Optional[str] = None

    def __post_init__(self):
        with context("<collision>"):
            _check_placed(self)


INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


@dataclass(frozen=True, kw_only=True)
class Inertial:
    """``<inertial>``: mass (kg) and inertia (kg*m^2) about the centre of mass.

    ``origin`` poses the centre-of-mass frame in the link frame; ``inertia`` is
    (ixx, ixy, ixz, iyy, iyz, izz) in that frame (a symmetric 3x3 matrix is accepted too).
    """

    mass: float
    origin: Origin = Origin()
    inertia: tuple[float, float, float, float, float, float] = (0.0,) * 6

    def __post_init__(self):
        with context("<inertial>"):
            m = _finite(self.mass, "<mass> value")
            if m < 0:
                raise UrdfError(f"<mass> value is negative: {m}")
            _set(self, "mass", m)
            _check_origin(self.origin)
            I = self.inertia
            if np.shape(I) == (3, 3):
                I = np.asarray(I, dtype=float)
                I = (I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2])
            _set(self, "inertia", _vec(I, 6, "<inertia>"))

    def inertia_matrix(self) -> np.ndarray:
        """Symmetric 3x3 inertia tensor (kg*m^2) in the centre-of-mass frame."""
        xx, xy, xz, yy, yz, zz = self.inertia
        return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])

