"""Helpers shared by the sidebar panels (no registered classes here).

Panels read the scene only through the bridge (:mod:`vart_addon.bridge.schema`) and change it
only through operators (``vart.*``) or, for the live sliders, through the functions in
:mod:`.live`. Operators that are not registered (yet) are left out of the layout instead of
drawing a broken button.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

import bpy

from ..bridge import SchemaError, schema
from ..solver.joint_types import CATALOG

if TYPE_CHECKING:  # the stubs' enum types (fake-bpy-module only; not importable in Blender)
    from bpy.stub_internal.rna_enums import RegionTypeItems, SpaceTypeItems

CATEGORY = "Vart"
SPACE: Final = 'VIEW_3D'
REGION: Final = 'UI'

#: An icon per joint type (all exist in Blender 4.2 to 5.0).
TYPE_ICONS = {
    "revolute": 'DRIVER_ROTATIONAL_DIFFERENCE',
    "prismatic": 'EMPTY_SINGLE_ARROW',
    "helical": 'MOD_SCREW',
    "cylindrical": 'MESH_CYLINDER',
    "pin-slider": 'CON_FOLLOWPATH',
    "cartesian-2": 'MESH_PLANE',
    "spherical": 'MESH_UVSPHERE',
    "planar": 'SNAP_FACE',
    "cartesian-3": 'EMPTY_ARROWS',
    "point-slider": 'CON_TRACKTO',
    "point-plane": 'SNAP_NORMAL',
    "general": 'ORIENTATION_GIMBAL',
    "fixed": 'CON_CHILDOF',
}
UNKNOWN_ICON = 'ERROR'

#: Readable names of configuration entries (joint_types layout names).
DOF_LABELS = {"tx": "X", "ty": "Y", "tz": "Z", "rz": "Angle",
              "wx": "Rot X", "wy": "Rot Y", "wz": "Rot Z"}

WORLD = "World"


def settings(context_or_scene):
    """``scene.vart`` (the operators' scene settings) or None if not registered."""
    scene = getattr(context_or_scene, "scene", context_or_scene)
    return getattr(scene, "vart", None) if scene is not None else None


def type_icon(jtype: str) -> str:
    return TYPE_ICONS.get(jtype, UNKNOWN_ICON)


def dof_layout(jtype: str) -> list[tuple[str, bool]]:
    """(label, is_angle) per configuration entry of a joint type."""
    jt = CATALOG[jtype]
    return [(DOF_LABELS.get(n, n), bool(a)) for n, a in zip(jt.layout, jt.is_angular())]


# ---- operators --------------------------------------------------------------------------------
def has_operator(idname: str) -> bool:
    """True if operator ``idname`` ("vart.solve") is registered."""
    mod, _, name = idname.partition(".")
    try:
        getattr(getattr(bpy.ops, mod), name).get_rna_type()
    except (KeyError, AttributeError):
        return False
    return True


def op(layout, idname: str, text: str | None = None, icon: str = 'NONE', **props):
    """An operator button with ``props`` set, or nothing if the operator is not registered.
    Returns the button's operator properties (or None)."""
    if not has_operator(idname):
        return None
    kw = {"icon": icon}
    if text is not None:
        kw["text"] = text
    for key in ("depress", "emboss"):
        if key in props:
            kw[key] = props.pop(key)
    button = layout.operator(idname, **kw)
    for k, v in props.items():
        setattr(button, k, v)
    return button


# ---- finding things -------------------------------------------------------------------------
def link_objects(scene) -> list:
    """The scene's link objects, sorted by name."""
    return sorted((ob for ob in scene.objects if schema.is_link(ob)), key=lambda ob: ob.name)


def find_joint(scene, name: str, hint: str = ""):
    """(child object, JointData) of joint ``name`` in ``scene``, or (None, None). ``hint`` is
    the child object's name if known (tried first). Objects whose data does not validate are
    skipped."""
    if not name:
        return None, None
    obs = scene.objects
    candidates = [obs[hint]] if hint and hint in obs else []
    candidates += [ob for ob in link_objects(scene) if ob.name != hint]
    for ob in candidates:
        if not schema.is_link(ob):
            continue
        try:
            _, joints = schema.read_object(ob)
        except SchemaError:
            continue
        for j in joints:
            if j.name == name:
                return ob, j
    return None, None


def view_layer_of(scene):
    """The context's view layer if it belongs to ``scene``, else the scene's first."""
    vl = getattr(bpy.context, "view_layer", None)
    if vl is not None and bpy.context.scene == scene:
        return vl
    return scene.view_layers[0]


# ---- display units ----------------------------------------------------------------------------
def fmt(value: float, angular: bool, scene=None) -> str:
    """A value in the scene's display units: degrees or radians (Rotation unit setting),
    metres or the scene's length unit (Unit System and Unit Scale). Infinite = "free"."""
    if math.isinf(value):
        return "\u221e" if value > 0 else "-\u221e"
    us = getattr(scene, "unit_settings", None)
    if angular:
        if us is not None and us.system_rotation == 'RADIANS':
            return f"{value:.4g} rad"
        return f"{math.degrees(value):.4g}\u00b0"
    if us is None or us.system == 'NONE':
        return f"{value:.4g}"
    return bpy.utils.units.to_string(us.system, 'LENGTH', value * us.scale_length,
                                     precision=4, split_unit=us.use_separate,
                                     compatible_unit=False)


def fmt_values(values, angular_flags, scene=None) -> str:
    return ", ".join(fmt(v, a, scene) for v, a in zip(values, angular_flags))


class Panel:
    """Base of vart's sidebar panels: 3D viewport, UI region, tab "Vart"; shown only while
    the add-on's scene settings are registered."""

    # Typed as bpy's stubs type them (a plain str clashes with bpy.types.Panel's).
    bl_space_type: SpaceTypeItems = SPACE
    bl_region_type: RegionTypeItems = REGION
    bl_category = CATEGORY

    @classmethod
    def poll(cls, context):
        return settings(context) is not None
