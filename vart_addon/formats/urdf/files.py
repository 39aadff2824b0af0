"""URDF format layer: read and write URDF files to and from the model of :mod:`.base`,
:mod:`.geometry`, :mod:`.model` and :mod:`.kinematics` (re-exported here).

Pure Python: ``xml.etree.ElementTree`` and numpy only. No kinematics solver here, just the file.

Reading is strict like urdfdom where the data would be meaningless (unknown joint types, bad
numbers, NaN/inf, broken tree) and lenient where real files commonly bend the spec:

- ``<limit>`` missing on revolute/prismatic: ``Joint.limit`` is None (caller decides);
- ``<limit>`` without effort/velocity: 0.0 (meaning "not given"); without lower/upper: 0.0 (spec);
- a visual naming a material that is defined nowhere: kept, with rgba None;
- ``<mesh scale>`` with one value: uniform scale; robot without a name: "";
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

from ..atomic import write_atomic

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


def _geometry(parent: ET.Element) -> Geometry:
    geo = _required(parent, "geometry")
    shapes = [c for c in geo if _local(c.tag) in ("box", "cylinder", "sphere", "mesh")]
    if not shapes:
        found = [_local(c.tag) for c in geo]
        raise UrdfError("<geometry> has no box, cylinder, sphere or mesh"
                        + (f" (found <{found[0]}>)" if found else ""))
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
    return Mesh(filename, cast(_Vec3, scale * 3 if len(scale) == 1 else scale))


def _material_fields(el: ET.Element) -> tuple[Optional[tuple], Optional[str]]:
    color, texture = _child(el, "color"), _child(el, "texture")
    rgba = tuple(_nums(color, "rgba", "<color>")) if color is not None else None
    tex = texture.get("filename") if texture is not None else None
    return rgba, tex


def _link(el: ET.Element) -> Link:
    name = el.get("name")
    if not name:
        raise UrdfError("<link> is missing attribute 'name'")
    with context(f"link '{name}'"):
        visuals, collisions, inertial = [], [], None
        for c in el:
            tag = _local(c.tag)
            if tag == "visual":
                with context("<visual>"):
                    mat = _child(c, "material")
                    rgba, tex = _material_fields(mat) if mat is not None else (None, None)
                    visuals.append(Visual(geometry=_geometry(c), origin=_origin(c), name=c.get("name"),
                                          material_name=mat.get("name") if mat is not None else None,
                                          rgba=rgba, texture=tex))
            elif tag == "collision":
                with context("<collision>"):
                    collisions.append(Collision(geometry=_geometry(c), origin=_origin(c), name=c.get("name")))
            elif tag == "inertial" and inertial is None:
                with context("<inertial>"):
                    mass = _scalar(_required(c, "mass"), "value", "<mass>")
                    ine = _required(c, "inertia")
                    inertia = [_scalar(ine, k, "<inertia>") for k in INERTIA_KEYS]
                    inertial = Inertial(mass=mass, origin=_origin(c),
                                        inertia=cast(_Vec6, inertia))
    return Link(name, tuple(visuals), tuple(collisions), inertial)


def _joint(el: ET.Element) -> Joint:
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
            kwargs["limit"] = Limit(*(_scalar(limit_el, k, "<limit>", 0.0)
                                      for k in ("lower", "upper", "effort", "velocity")))
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
            links.append(_link(el))
        elif tag == "joint":
            joints.append(_joint(el))
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
    warnings = []
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
    if isinstance(text, str):
        text = text.lstrip("\ufeff \t\r\n")  # blank lines before <?xml ...?> are common enough
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


# ---------------------------------------------------------------- writing


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
