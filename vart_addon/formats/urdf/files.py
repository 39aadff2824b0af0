"""URDF format layer: read and write URDF files to and from the model of :mod:`.base`,
:mod:`.geometry`, :mod:`.model` and :mod:`.kinematics` (re-exported here).

Pure Python: ``xml.etree.ElementTree`` and numpy only. No kinematics solver here, just the file.

Reading is strict like urdfdom where the data would be meaningless (unknown joint types, bad
numbers, NaN/inf, broken tree) and lenient where real files commonly bend the spec:

- ``<limit>`` missing on revolute/prismatic: ``Joint.limit`` is None (caller decides);
- ``<limit>`` without effort/velocity: 0.0 (meaning "not given"); without lower/upper: 0.0 (spec);
- a visual naming a material that is defined nowhere: kept, with rgba None;
- ``<mesh scale>`` with one value: uniform scale; robot without a name: "";
- what Pinocchio (urdfdom) loads and vart once refused, read with a warning in
  ``Robot.warnings``: a ``<limit>`` whose lower exceeds its upper (read swapped); geometry
  URDF does not define (``<plane>``, ``<cdf>``, ...) and a ``<mesh scale>`` of neither one
  nor three numbers: that ``<visual>`` or ``<collision>`` is skipped (urdfdom skips it too,
  and with it the link's other geometry: vart keeps that); blank lines before the XML
  declaration;
- identical duplicate global materials are merged;
- unknown elements are ignored; unknown top-level ones (gazebo, transmission, ros2_control, ...)
  are kept verbatim in ``Robot.extras`` and written back.

Errors raise :class:`UrdfError` (a ValueError) whose message names the element, prefixed with the
source name when known: ``arm.urdf: joint 'knee': unknown type 'hinge' ...``.
"""

from __future__ import annotations

import dataclasses
import os
import xml.etree.ElementTree as ET
from typing import Any, Optional, Union, cast

# re-exported: this module is the public entry point of the URDF model
from .base import Origin, UrdfError, axis_angle_matrix, context, matrix_to_rpy, rpy_to_matrix
from .geometry import (
    INERTIA_KEYS,
    Box,
    Collision,
    Cylinder,
    Geometry,
    Inertial,
    Material,
    Mesh,
    Sphere,
    Visual,
)
from .kinematics import joint_motion, joint_values, link_poses  # noqa: F401
from .model import AXISLESS, JOINT_TYPES, Dynamics, Joint, Limit, Link, Mimic, Robot
from .writing import save_urdf, write_urdf

__all__ = [
    "UrdfError", "Origin", "Box", "Cylinder", "Sphere", "Mesh", "Geometry", "Material", "Visual",
    "Collision", "Inertial", "Link", "Limit", "Mimic", "Dynamics", "Joint", "Robot", "JOINT_TYPES",
    "read_urdf", "parse_urdf_string", "write_urdf", "save_urdf", "link_poses", "joint_values",
    "joint_motion", "rpy_to_matrix", "matrix_to_rpy", "axis_angle_matrix",
]

_KNOWN_TOP = ("link", "joint", "material")

# Vectors read as lists: the dataclass receiving one checks its count (and makes it a tuple).
_Vec3 = tuple[float, float, float]
_Vec6 = tuple[float, float, float, float, float, float]


# ---------------------------------------------------------------- reading


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _num(text: str, what: str) -> float:
    try:
        if "_" in text:
            raise ValueError
        return float(text)
    except ValueError:
        hint = " (unexpanded xacro? run xacro first)" if "$" in text else ""
        raise UrdfError(f"{what} value {text!r} is not a number{hint}") from None


def _nums(el: ET.Element, attr: str, what: str, default: Optional[str] = None) -> list[float]:
    text = el.get(attr, default)
    if text is None:
        raise UrdfError(f"{what} is missing attribute '{attr}'")
    return [_num(t, f"{what} {attr}") for t in text.split()]


def _scalar(el: ET.Element, attr: str, what: str, default: Optional[float] = None) -> float:
    text = el.get(attr)
    if text is None:
        if default is None:
            raise UrdfError(f"{what} is missing attribute '{attr}'")
        return default
    vals = [_num(t, f"{what} {attr}") for t in text.split()]
    if len(vals) != 1:
        raise UrdfError(f"{what} {attr} has {len(vals)} values, expected 1")
    return vals[0]


def _child(el: ET.Element, tag: str) -> Optional[ET.Element]:
    return next((c for c in el if _local(c.tag) == tag), None)


def _required(el: ET.Element, tag: str) -> ET.Element:
    c = _child(el, tag)
    if c is None:
        raise UrdfError(f"missing <{tag}>")
    return c


def _origin(parent: ET.Element) -> Origin:
    el = _child(parent, "origin")
    if el is None:
        return Origin()
    return Origin(cast(_Vec3, _nums(el, "xyz", "<origin>", "0 0 0")),
                  cast(_Vec3, _nums(el, "rpy", "<origin>", "0 0 0")))


class _Skipped(Exception):
    """Geometry Pinocchio (urdfdom) loads the file without: the element is skipped, and the
    message says why (``Robot.warnings``)."""


def _geometry(parent: ET.Element) -> Geometry:
    geo = _required(parent, "geometry")
    shapes = [c for c in geo if _local(c.tag) in ("box", "cylinder", "sphere", "mesh")]
    if not shapes:
        found = [_local(c.tag) for c in geo if isinstance(c.tag, str)]
        if found:  # <plane>, <cdf>, ...: ROS tools load the robot without it
            raise _Skipped(f"<{found[0]}> is not URDF geometry (box, cylinder, sphere, mesh)")
        raise UrdfError("<geometry> has no box, cylinder, sphere or mesh")
    s, kind = shapes[0], _local(shapes[0].tag)
    if kind == "box":
        return Box(cast(_Vec3, _nums(s, "size", "<box>")))
    if kind == "cylinder":
        return Cylinder(_scalar(s, "radius", "<cylinder>"), _scalar(s, "length", "<cylinder>"))
    if kind == "sphere":
        return Sphere(_scalar(s, "radius", "<sphere>"))
    filename = s.get("filename")
    if filename is None:
        raise UrdfError("<mesh> is missing attribute 'filename'")
    scale = _nums(s, "scale", "<mesh>", "1 1 1")
    if len(scale) not in (1, 3):  # urdfdom cannot parse it and skips the element
        raise _Skipped(f"<mesh> scale has {len(scale)} values, not 3")
    return Mesh(filename, cast(_Vec3, scale * 3 if len(scale) == 1 else scale))


def _material_fields(el: ET.Element) -> tuple[Optional[tuple], Optional[str]]:
    color, texture = _child(el, "color"), _child(el, "texture")
    rgba = tuple(_nums(color, "rgba", "<color>")) if color is not None else None
    tex = texture.get("filename") if texture is not None else None
    return rgba, tex


def _link(el: ET.Element, warnings: list) -> Link:
    name = el.get("name")
    if not name:
        raise UrdfError("<link> is missing attribute 'name'")
    with context(f"link '{name}'"):
        visuals, collisions, inertial = [], [], None
        for c in el:
            tag = _local(c.tag)
            try:
                if tag == "visual":
                    with context("<visual>"):
                        mat = _child(c, "material")
                        rgba, tex = _material_fields(mat) if mat is not None else (None, None)
                        visuals.append(Visual(
                            geometry=_geometry(c), origin=_origin(c), name=c.get("name"),
                            material_name=mat.get("name") if mat is not None else None,
                            rgba=rgba, texture=tex))
                elif tag == "collision":
                    with context("<collision>"):
                        collisions.append(Collision(geometry=_geometry(c), origin=_origin(c),
                                                    name=c.get("name")))
            except _Skipped as e:
                warnings.append(f"link '{name}': <{tag}>: {e}: skipped")
            if tag == "inertial" and inertial is None:
                with context("<inertial>"):
                    mass = _scalar(_required(c, "mass"), "value", "<mass>")
                    ine = _required(c, "inertia")
                    inertia = [_scalar(ine, k, "<inertia>") for k in INERTIA_KEYS]
                    inertial = Inertial(mass=mass, origin=_origin(c),
                                        inertia=cast(_Vec6, inertia))
    return Link(name, tuple(visuals), tuple(collisions), inertial)


def _joint(el: ET.Element, warnings: list) -> Joint:
    name = el.get("name")
    if not name:
        raise UrdfError("<joint> is missing attribute 'name'")
    with context(f"joint '{name}'"):
        jtype = el.get("type")
        if jtype is None:
            raise UrdfError("<joint> is missing attribute 'type'")
        ends: dict[str, str] = {}
        for end in ("parent", "child"):
            link = _required(el, end).get("link")
            if not link:
                raise UrdfError(f"<{end}> is missing attribute 'link'")
            ends[end] = link
        axis_el, limit_el = _child(el, "axis"), _child(el, "limit")
        mimic_el, dyn_el = _child(el, "mimic"), _child(el, "dynamics")
        kwargs: dict[str, Any] = dict(origin=_origin(el))
        if axis_el is not None and jtype not in AXISLESS:  # urdfdom ignores their axis
            kwargs["axis"] = _nums(axis_el, "xyz", "<axis>", "1 0 0")
        if limit_el is not None:
            lower, upper, effort, velocity = (_scalar(limit_el, k, "<limit>", 0.0)
                                              for k in ("lower", "upper", "effort", "velocity"))
            if lower > upper:  # Pinocchio loads it; its meaning is plain
                warnings.append(f"joint '{name}': <limit> lower {lower:g} > upper {upper:g}: "
                                f"read as [{upper:g}, {lower:g}]")
                lower, upper = upper, lower
            kwargs["limit"] = Limit(lower, upper, effort, velocity)
        if mimic_el is not None:
            leader = mimic_el.get("joint")
            if not leader:
                raise UrdfError("<mimic> is missing attribute 'joint'")
            kwargs["mimic"] = Mimic(leader, _scalar(mimic_el, "multiplier", "<mimic>", 1.0),
                                    _scalar(mimic_el, "offset", "<mimic>", 0.0))
        if dyn_el is not None:
            kwargs["dynamics"] = Dynamics(_scalar(dyn_el, "damping", "<dynamics>", 0.0),
                                          _scalar(dyn_el, "friction", "<dynamics>", 0.0))
    return Joint(name, jtype, ends["parent"], ends["child"], **kwargs)


def _extra_text(el: ET.Element) -> str:
    el = ET.fromstring(ET.tostring(el))  # a copy, so indenting leaves the parsed tree alone
    el.tail = None
    ET.indent(el, "  ")
    return ET.tostring(el, encoding="unicode")


def _robot(root: ET.Element) -> Robot:
    if _local(root.tag) != "robot":
        raise UrdfError(f"root element is <{_local(root.tag)}>, expected <robot>")
    for el in root.iter():
        if el.tag.startswith("{") and "xacro" in el.tag:
            raise UrdfError(f"contains xacro element <xacro:{_local(el.tag)}>; expand the file with xacro first")
    name = root.get("name", "")
    materials: dict[str, Material] = {}
    links, joints, extras = [], [], []
    warnings: list[str] = []
    for el in root:
        tag = _local(el.tag)
        if tag == "material":
            mname = el.get("name")
            if not mname:
                raise UrdfError("<material> is missing attribute 'name'")
            with context(f"material '{mname}'"):
                m = Material(mname, *_material_fields(el))
            if materials.get(m.name, m) != m:
                raise UrdfError(f"material '{m.name}': defined twice with different values")
            materials[m.name] = m
        elif tag == "link":
            links.append(_link(el, warnings))
        elif tag == "joint":
            joints.append(_joint(el, warnings))
        else:
            extras.append(_extra_text(el))
    # a visual that only names its material takes the colour of the global material of that
    # name, else of the first inline material of that name that has one (as urdfdom does)
    known = {n: (m.rgba, m.texture) for n, m in materials.items()}
    for link in links:
        for v in link.visuals:
            if v.material_name and (v.rgba or v.texture):
                known.setdefault(v.material_name, (v.rgba, v.texture))
    resolved = []
    for link in links:
        visuals = tuple(
            dataclasses.replace(v, rgba=known[v.material_name][0], texture=known[v.material_name][1])
            if v.material_name in known and v.rgba is None and v.texture is None else v
            for v in link.visuals)
        resolved.append(dataclasses.replace(link, visuals=visuals) if visuals != link.visuals else link)
    # a <mimic> that cannot couple anything (on a fixed joint, or naming a joint the file
    # lacks or one without a single value): urdfdom and Pinocchio load such files; the joint
    # moves on its own, and the robot's warnings say so
    types = {j.name: j.type for j in joints}
    for i, j in enumerate(joints):
        if j.mimic is None:
            continue
        leader = j.mimic.joint
        if j.type == "fixed":
            why = "is ignored: the joint is fixed"
        elif leader not in types:
            why = f"names joint '{leader}', which the file does not have: it moves on its own"
        elif types[leader] not in ("revolute", "continuous", "prismatic"):
            why = (f"names joint '{leader}', which is {types[leader]}: it moves on its own")
        else:
            continue
        warnings.append(f"joint '{j.name}': <mimic> {why}")
        joints[i] = dataclasses.replace(j, mimic=None)
    return Robot(name, tuple(resolved), tuple(joints), tuple(materials.values()), tuple(extras),
                 warnings=tuple(warnings))


def parse_urdf_string(text: Union[str, bytes], *, source_name: Optional[str] = None) -> Robot:
    """Parse URDF text (str, or bytes honouring the XML encoding declaration) into a Robot."""
    # blank lines before <?xml ...?> are common enough (and Pinocchio reads them)
    text = text.lstrip("\ufeff \t\r\n") if isinstance(text, str) else \
        text.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    try:
        try:
            root = ET.fromstring(text)
        except ET.ParseError as e:
            line, col = e.position
            raise UrdfError(f"malformed XML at line {line}, column {col + 1}: {e}") from None
        return _robot(root)
    except UrdfError as e:
        if source_name:
            raise UrdfError(f"{source_name}: {e}") from e.__cause__
        raise


def read_urdf(path_or_text: Union[str, bytes, os.PathLike], *, source_name: Optional[str] = None) -> Robot:
    """Read a URDF from a file path, or from text (a str whose first non-blank character is
    '<', or bytes). Errors name ``source_name`` (default: the file's base name). A file that
    cannot be opened raises the usual OSError."""
    if isinstance(path_or_text, (bytes, bytearray)):
        return parse_urdf_string(bytes(path_or_text), source_name=source_name)
    if isinstance(path_or_text, str) and path_or_text.lstrip("\ufeff \t\r\n").startswith("<"):
        return parse_urdf_string(path_or_text, source_name=source_name)
    path = os.fspath(path_or_text)
    with open(path, "rb") as f:
        data = f.read()
    return parse_urdf_string(data, source_name=source_name or os.path.basename(path))

