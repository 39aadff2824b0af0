"""Writing URDF: a :class:`~.model.Robot` as URDF text or an atomically written file.

Pure Python (``xml.etree.ElementTree``). Import through :mod:`vart_addon.formats.urdf.files`,
which re-exports :func:`write_urdf` and :func:`save_urdf`. Numbers are written as the shortest
text that reads back as the same float; what :func:`~.files.read_urdf` kept of unknown
top-level elements (``Robot.extras``) is written back verbatim.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Union

from ..atomic import write_atomic
from .base import Origin
from .geometry import INERTIA_KEYS, Box, Cylinder, Geometry, Sphere
from .model import AXISLESS, Robot


def _f(x: float) -> str:
    """Shortest text that reads back as exactly the same float."""
    s = repr(float(x))
    return s[:-2] if s.endswith(".0") else s


def _fs(values) -> str:
    return " ".join(_f(v) for v in values)


def _sub(parent: ET.Element, tag: str, **attrs) -> ET.Element:
    return ET.SubElement(parent, tag, {k: v for k, v in attrs.items() if v is not None})


def _write_origin(parent: ET.Element, o: Origin, always: bool = False) -> None:
    if always or not o.is_identity:
        _sub(parent, "origin", xyz=_fs(o.xyz), rpy=_fs(o.rpy))


def _write_geometry(parent: ET.Element, g: Geometry) -> None:
    geo = _sub(parent, "geometry")
    if isinstance(g, Box):
        _sub(geo, "box", size=_fs(g.size))
    elif isinstance(g, Cylinder):
        _sub(geo, "cylinder", radius=_f(g.radius), length=_f(g.length))
    elif isinstance(g, Sphere):
        _sub(geo, "sphere", radius=_f(g.radius))
    else:
        _sub(geo, "mesh", filename=g.filename, scale=None if g.scale == (1.0, 1.0, 1.0) else _fs(g.scale))


def _write_material_fields(el: ET.Element, rgba, texture) -> None:
    if rgba is not None:
        _sub(el, "color", rgba=_fs(rgba))
    if texture is not None:
        _sub(el, "texture", filename=texture)


def _build(robot: Robot) -> ET.Element:
    root = ET.Element("robot", name=robot.name)
    for m in robot.materials:
        _write_material_fields(_sub(root, "material", name=m.name), m.rgba, m.texture)
    for link in robot.links:
        le = _sub(root, "link", name=link.name)
        if link.inertial is not None:
            ie = _sub(le, "inertial")
            _write_origin(ie, link.inertial.origin)
            _sub(ie, "mass", value=_f(link.inertial.mass))
            _sub(ie, "inertia", **{k: _f(v) for k, v in zip(INERTIA_KEYS, link.inertial.inertia)})
        for v in link.visuals:
            ve = _sub(le, "visual", name=v.name)
            _write_origin(ve, v.origin)
            _write_geometry(ve, v.geometry)
            if v.material_name is not None or v.rgba is not None or v.texture is not None:
                me = _sub(ve, "material", name=v.material_name or "")
                glob = robot.material_by_name(v.material_name) if v.material_name else None
                if glob is None or (glob.rgba, glob.texture) != (v.rgba, v.texture):
                    _write_material_fields(me, v.rgba, v.texture)
        for c in link.collisions:
            ce = _sub(le, "collision", name=c.name)
            _write_origin(ce, c.origin)
            _write_geometry(ce, c.geometry)
    for j in robot.joints:
        je = _sub(root, "joint", name=j.name, type=j.type)
        _write_origin(je, j.origin, always=True)
        _sub(je, "parent", link=j.parent)
        _sub(je, "child", link=j.child)
        if j.type not in AXISLESS:
            _sub(je, "axis", xyz=_fs(j.axis))
        if j.limit is not None:
            _sub(je, "limit", lower=_f(j.limit.lower), upper=_f(j.limit.upper),
                 effort=_f(j.limit.effort), velocity=_f(j.limit.velocity))
        if j.dynamics is not None:
            _sub(je, "dynamics", damping=_f(j.dynamics.damping), friction=_f(j.dynamics.friction))
        if j.mimic is not None:
            _sub(je, "mimic", joint=j.mimic.joint, multiplier=_f(j.mimic.multiplier), offset=_f(j.mimic.offset))
    for x in robot.extras:
        root.append(ET.fromstring(x))
    ET.indent(root, "  ")
    return root


def write_urdf(robot: Robot) -> str:
    """URDF text of ``robot`` (UTF-8 XML); ``read_urdf`` of it gives back an equal Robot."""
    if not isinstance(robot, Robot):
        raise TypeError(f"write_urdf expects a Robot, not {type(robot).__name__}")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(_build(robot), encoding="unicode") + "\n"


def save_urdf(robot: Robot, path: Union[str, os.PathLike]) -> None:
    """Write ``robot`` to ``path`` atomically: the text goes to a temporary file in the same
    folder, which then replaces ``path``. On any failure no temporary file is left and an
    existing file at ``path`` is untouched; OS failures raise OSError naming ``path``."""
    path = os.fspath(path)
    data = write_urdf(robot).encode("utf-8")  # serialise first: nothing touched if this fails
    write_atomic(path, data, "URDF")
