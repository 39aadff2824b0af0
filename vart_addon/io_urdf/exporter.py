"""Export the scene's real robot as URDF in a self-contained package: the file and, beside it,
every mesh it names in ``meshes/`` (:mod:`.export_package`).

What is written (:func:`export_urdf`):

- the real links and real joints, through
  :func:`~vart_addon.formats.urdf.from_linkage.urdf_from_linkage` (virtual links and joints are
  left out; a real joint URDF cannot express, a closure, a link not connected to the others... is
  rewritten or left out with a warning, returned to the caller);
- a visual imported from a mesh file whose geometry is unchanged (same mesh data, transform
  and no modifiers added: :func:`.visuals.fingerprint`) keeps that file with its origin and
  scale: copied into ``meshes/`` (STL, OBJ) or converted to STL (Collada), named relative to
  the new URDF (``meshes/base.stl``); a format MuJoCo does not read (PLY) is written as below;
- any other link geometry is the evaluated mesh (modifiers applied) of the link object itself, when
  it has geometry, and of every Blender descendant that is not itself a link (the descendants
  of another link belong to that link). Each becomes one ``<visual>``: an STL file (binary, or
  ASCII) in the link frame (identity ``<origin>``) in ``meshes/``. Its colour is that of the
  object's first material (Principled BSDF base colour, else the viewport colour), or the
  object colour when it has no material. Placeholder Empties of meshes an import could not
  read are left out (with a warning);
- what the scene does not hold is carried over from the URDF the robot was imported from,
  when the robot's collection keeps it (``collection["vart_urdf"]``, see :mod:`.importer`):
  collisions (box, cylinder, sphere; mesh files, ``package://`` ones included, found as the
  import found them and kept in ``meshes/`` as visuals are, or left out with a warning),
  inertia tensors, effort and velocity limits, dynamics, materials and extra elements
  (gazebo, ...; a ``<mujoco>`` element's ``<compiler>`` mesh folders dropped).

So the export re-imports from its own folder with every mesh, MuJoCo loads the URDF as it
is, and Pinocchio with the folder as its package directory. Every file is written atomically
(a temporary file replaced into place): the meshes first, then the URDF
(:func:`~vart_addon.formats.urdf.files.save_urdf`). ``ExportResult.meshes`` lists every mesh
file written. Errors raise :class:`IoError`.
"""
from __future__ import annotations

import copy
import dataclasses
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..bridge import poses as P
from ..bridge import schema as S
from ..bridge.errors import BridgeError
from ..bridge.scene import SceneBridge
from ..formats.urdf import files as urdf
from ..formats.urdf import mesh_paths
from ..formats.urdf.from_linkage import urdf_from_linkage
from ..solver import VartError
from .errors import IoError
from .export_package import MeshPackage, safe_name
from .importer import MISSING_KEY, SOURCE_KEY, read_source
from .visuals import SOURCE_MESH_KEY, fingerprint

__all__ = ["export_urdf", "ExportResult", "robot_components", "depsgraph_of", "geometry_objects",
           "mesh_in_frame", "source_template"]

_GEOMETRY_TYPES = ('MESH', 'CURVE', 'SURFACE', 'FONT', 'META')


@dataclass
class ExportResult:
    """What :func:`export_urdf` wrote: the URDF ``path``, the ``robot`` model, the mesh files
    (absolute paths) and the warnings."""

    path: str
    robot: urdf.Robot
    meshes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)


def export_urdf(path, *, context=None, scene=None, name: str | None = None,
                binary: bool = True, links=None, keep_meshes: bool = True,
                search_paths=()) -> ExportResult:
    """Write the real robot of ``scene`` (default: the context's) to the URDF file ``path``
    and every mesh it names to ``meshes/`` next to it (:mod:`.export_package`: a
    self-contained package). ``name``: the robot name (default: that of the imported URDF,
    else the file's stem). ``binary``: binary STL (else ASCII). ``links``: names of link
    objects; when given, only the robots (sets of links connected by real joints) that
    contain one of them are written. ``keep_meshes``: an imported visual whose geometry is
    unchanged keeps its original mesh file, copied (STL, OBJ) or converted (Collada to STL);
    else every visual is written as an STL of what it shows. ``search_paths``: where the
    original URDF's ``package://`` collision meshes are looked for, beside its folder and
    the ROS environment. Raises :class:`IoError`."""
    ctx = context if context is not None else bpy.context
    scene = scene if scene is not None else ctx.scene
    path = os.path.abspath(os.fspath(path))
    stem = os.path.splitext(os.path.basename(path))[0] or "robot"
    folder = os.path.dirname(path)
    package = MeshPackage(folder, binary)
    try:
        bridge = SceneBridge(scene)
        bridge.sync()
    except BridgeError as e:
        raise IoError(f"cannot export the scene: {e}") from None
    lk, obs = bridge.linkage, bridge.objects()
    assert lk is not None  # synced
    if links is not None:
        lk = _only(lk, set(links))
    real = [n for n, link in lk.links.items() if not link.virtual]
    if not real:
        raise IoError("nothing to export: the scene has no real links"
                      + (" among the selected robots" if links is not None else ""))
    warnings: list[str] = []
    template = source_template(obs, real, package, warnings, search_paths)
    robot_name = name or (template.name if template is not None and template.name else stem)

    depsgraph = depsgraph_of(ctx, scene)
    visuals = {}
    for n in real:
        ob = obs[n]
        T = P.rigid_and_scale(P.observe(ob), n)[0]
        geo = geometry_objects(ob, warnings)
        vis = []
        for g in geo:
            same = _unchanged_source(g, ob, package) if keep_meshes else None
            mat_name, rgba = _colour(g)
            if same is not None:
                vis.append(dataclasses.replace(same, name=g.name, material_name=mat_name,
                                               rgba=rgba))
                continue
            tri_v, tri_i = mesh_in_frame(g, depsgraph, T)
            if len(tri_i) == 0:
                continue
            base = safe_name(n) if len(geo) == 1 else f"{safe_name(n)}__{safe_name(g.name)}"
            vis.append(urdf.Visual(geometry=urdf.Mesh(package.add_stl(base, tri_v, tri_i,
                                                                      g.name)),
                                   name=g.name, material_name=mat_name, rgba=rgba))
        visuals[n] = tuple(vis)
    try:
        robot, more = urdf_from_linkage(lk, robot_name, visuals=visuals, template=template)
    except (VartError, urdf.UrdfError) as e:
        raise IoError(f"cannot export: {e}") from None
    warnings.extend(more)
    try:
        written = package.write()
        urdf.save_urdf(robot, path)
    except OSError as e:
        raise IoError(str(e)) from None
    return ExportResult(path, robot, written, warnings)


# ---- which robot ------------------------------------------------------------------------------
def robot_components(lk) -> list[set]:
    """Sets of real link names connected by real joints (each a robot)."""
    up = {n: n for n, link in lk.links.items() if not link.virtual}

    def find(x):
        while up[x] != x:
            up[x] = up[up[x]]
            x = up[x]
        return x

    for j in lk.joints.values():
        if j.virtual or j.parent is None or j.parent not in up or j.child not in up:
            continue
        up[find(j.parent)] = find(j.child)
    comps: dict = {}
    for n in up:
        comps.setdefault(find(n), set()).add(n)
    return list(comps.values())


def _only(lk, names: set):
    """A copy of the linkage where the robots without any of ``names`` are virtual."""
    keep = set().union(*[c for c in robot_components(lk) if c & names] or [set()])
    out = copy.deepcopy(lk)
    for n, link in out.links.items():
        if n not in keep:
            link.virtual = True
    for j in out.joints.values():
        if j.child not in keep and (j.parent is None or j.parent not in keep):
            j.virtual = True
    out.touch_topology()  # the copy's cached kinematic model refers to the original joints
    return out


# ---- geometry ---------------------------------------------------------------------------------
def depsgraph_of(ctx, scene):
    """The updated depsgraph of ``scene`` (the context's view layer when it shows that scene,
    else the scene's first): what evaluated meshes are read from."""
    vl = ctx.view_layer if ctx.scene == scene and ctx.view_layer is not None \
        else scene.view_layers[0]
    vl.update()
    return vl.depsgraph


def geometry_objects(link_ob, warnings) -> list:
    """The link object (if it has geometry) and its non-link descendants with geometry."""
    out = [link_ob] if link_ob.type in _GEOMETRY_TYPES else []
    stack = list(link_ob.children)
    while stack:
        ob = stack.pop(0)
        if S.is_link(ob):
            continue
        if MISSING_KEY in ob.keys():
            warnings.append(f"link {link_ob.name!r}: {ob.name!r} stands in for mesh "
                            f"{ob[MISSING_KEY]!r}, which was not imported; left out")
        elif ob.type in _GEOMETRY_TYPES:
            out.append(ob)
        stack.extend(ob.children)
    return out


def mesh_in_frame(ob, depsgraph, T_link):
    """Evaluated triangles of ``ob`` in the link frame ``T_link``: (vertices n x 3, triangle
    indices m x 3). Mirrored transforms keep outward normals (winding reversed)."""
    ev = ob.evaluated_get(depsgraph)
    try:
        me = ev.to_mesh()
    except RuntimeError:
        return np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)
    try:
        me.calc_loop_triangles()
        nv, nt = len(me.vertices), len(me.loop_triangles)
        v = np.empty(nv * 3, dtype=np.float64)
        me.vertices.foreach_get("co", v)
        t = np.empty(nt * 3, dtype=np.int64)
        me.loop_triangles.foreach_get("vertices", t)
    finally:
        ev.to_mesh_clear()
    M = np.linalg.inv(T_link) @ np.array(ev.matrix_world, dtype=float)
    v = v.reshape(-1, 3) @ M[:3, :3].T + M[:3, 3]
    t = t.reshape(-1, 3)
    if np.linalg.det(M[:3, :3]) < 0:
        t = t[:, ::-1]
    return v, t


def _unchanged_source(g, link_ob, package: MeshPackage):
    """The URDF visual naming the mesh file ``g`` was imported from, kept in ``package``
    (copied, or converted), when its geometry is unchanged since
    (:func:`.visuals.fingerprint`) and it still hangs directly from its link; else None (the
    export writes an STL of what ``g`` shows)."""
    rec = g.get(SOURCE_MESH_KEY)
    if rec is None or g.parent != link_ob or g.type != 'MESH':
        return None
    try:
        if fingerprint(g) != str(rec["fingerprint"]):
            return None
        path = str(rec["path"])
        origin = urdf.Origin(tuple(rec["xyz"]), tuple(rec["rpy"]))
        scale = tuple(float(x) for x in rec["scale"])
    except (KeyError, TypeError, ValueError, urdf.UrdfError):
        return None  # a damaged record: write the geometry itself
    if not os.path.isfile(path):
        return None
    kept = package.keep(path, [])  # not kept: the STL of what it shows is written instead
    if kept is None:
        return None
    return urdf.Visual(geometry=urdf.Mesh(kept, scale), origin=origin)  # type: ignore[arg-type]


#: Principled BSDF base colour and viewport colour of a new material.
_DEFAULT_BASE = (0.800000011920929, 0.800000011920929, 0.800000011920929, 1.0)


def _colour(ob):
    """(material name, rgba) of an object's visual colour, or (None, None): the Principled
    BSDF base colour and alpha of its first material (its viewport colour when only that was
    changed from the defaults), else the object colour if it is not white."""
    mat = next((s.material for s in ob.material_slots if s.material is not None), None)
    if mat is not None:
        rgba = tuple(mat.diffuse_color)
        tree = getattr(mat, "node_tree", None)
        bsdf = None if tree is None else next(
            (n for n in tree.nodes if n.type == 'BSDF_PRINCIPLED'), None)
        if bsdf is not None and not bsdf.inputs["Base Color"].is_linked:
            c = tuple(bsdf.inputs["Base Color"].default_value)
            c = c[:3] + (float(bsdf.inputs["Alpha"].default_value),)
            if c != _DEFAULT_BASE or rgba == _DEFAULT_BASE:  # else: only the viewport colour set
                rgba = c
        return _name(mat.name), tuple(round(float(x), 6) for x in rgba)
    if tuple(ob.color) != (1.0, 1.0, 1.0, 1.0):
        return f"{_name(ob.name)}_color", tuple(round(float(x), 6) for x in ob.color)
    return None, None


def _name(name: str) -> str:
    """A Blender name without its ``.001`` suffix."""
    return re.sub(r"\.\d{3}$", "", name)


# ---- the imported URDF as a template ----------------------------------------------------------
def source_template(obs, real, package, warnings, search_paths=()):
    """The URDF the robot was imported from (collisions, inertia tensors, ... for the export),
    with its visuals dropped and its mesh collisions kept in ``package`` (a
    :class:`.export_package.MeshPackage`; found as the import found them: around the source
    file, ``search_paths``, the ROS environment), and what a ``<mujoco>`` element says of
    mesh folders dropped (the package has its own). ``package`` a folder instead (for
    readers of the limits and inertials): mesh paths made relative to it, nothing copied."""
    best, best_n = None, 0
    real_obs = {obs[n] for n in real}
    for coll in bpy.data.collections:
        src = coll.get(SOURCE_KEY)
        if src is None:
            continue
        n = sum(1 for ob in coll.objects if ob in real_obs)
        if n > best_n:
            best, best_n = coll, n
    if best is None:
        return None
    src = best[SOURCE_KEY]
    source = str(src.get("file", ""))
    try:
        robot = read_source(src)
    except (OSError, urdf.UrdfError) as e:
        warnings.append(f"the URDF {source!r} the robot came from cannot be read again ({e}); "
                        "collisions, inertia tensors and effort/velocity limits are not kept")
        return None
    dropped = []
    links = []
    for link in robot.links:
        cols = []
        for c in link.collisions:
            g = c.geometry
            if isinstance(g, urdf.Mesh):
                res = mesh_paths.resolve(g.filename, source, search_paths)
                kept = None if not res.found else package.keep(res.path, warnings) \
                    if isinstance(package, MeshPackage) else _relative(res.path, package)
                if kept is None:
                    dropped.append(g.filename)
                    continue
                c = dataclasses.replace(c, geometry=dataclasses.replace(g, filename=kept))
            cols.append(c)
        links.append(dataclasses.replace(link, visuals=(), collisions=tuple(cols)))
    if dropped:
        warnings.append(f"{len(dropped)} collision mesh(es) of the original URDF not found or "
                        f"not kept, left out: {', '.join(sorted(set(dropped))[:5])}")
    return dataclasses.replace(robot, links=tuple(links), extras=_own_mesh_folder(robot.extras))


def _relative(path: str, folder: str) -> str:
    try:
        return os.path.relpath(path, folder).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        return path


def _own_mesh_folder(extras) -> tuple:
    """The extra elements, a ``<mujoco>`` one without the ``<compiler>`` folders that would
    send MuJoCo away from the package's ``meshes/``."""
    out = []
    for text in extras:
        if text.lstrip().startswith("<mujoco"):
            el = ET.fromstring(text)
            for comp in el.iter("compiler"):
                for key in ("meshdir", "assetdir", "texturedir", "strippath"):
                    comp.attrib.pop(key, None)
            text = ET.tostring(el, encoding="unicode")
        out.append(text)
    return tuple(out)
