"""Export the scene's real robot as URDF, with its visual geometry as STL files.

What is written (:func:`export_urdf`):

- the real links and real joints, through
  :func:`~vart_addon.formats.urdf.from_linkage.urdf_from_linkage` (virtual links and joints are
  left out; a real joint URDF cannot express, a closure, a link not connected to the others... is
  rewritten or left out with a warning, returned to the caller);
- a visual imported from a mesh file whose geometry is unchanged (same mesh data, transform
  and no modifiers added: :func:`.visuals.fingerprint`) is written as it was read: the same
  file (a ``package://`` name as written, another path relative to the new URDF) with its
  origin and scale; no STL is written for it;
- any other link geometry is the evaluated mesh (modifiers applied) of the link object itself, when
  it has geometry, and of every Blender descendant that is not itself a link (the descendants
  of another link belong to that link). Each becomes one ``<visual>``: an STL file (binary, or
  ASCII) in the link frame (identity ``<origin>``), in a folder next to the URDF
  (``<stem>_meshes/``), named by a path relative to the URDF. Its colour is that of the
  object's first material (Principled BSDF base colour, else the viewport colour), or the
  object colour when it has no material. Placeholder Empties of meshes an import could not
  read are left out (with a warning);
- what the scene does not hold is carried over from the URDF the robot was imported from,
  when the robot's collection keeps it (``collection["vart_urdf"]``, see :mod:`.importer`):
  collisions (box, cylinder, sphere; ``package://`` meshes as they are; other mesh paths
  re-resolved and written relative to the new file, or left out with a warning), inertia
  tensors, effort and velocity limits, dynamics, materials and extra elements (gazebo, ...).

Every file is written atomically (a temporary file replaced into place): the STL files first,
then the URDF (:func:`~vart_addon.formats.urdf.files.save_urdf`). Errors raise :class:`IoError`.
"""
from __future__ import annotations

import copy
import dataclasses
import os
import re
from dataclasses import dataclass, field

import bpy
import numpy as np

from ..bridge import poses as P
from ..bridge import schema as S
from ..bridge.errors import BridgeError
from ..bridge.scene import SceneBridge
from ..formats import stl
from ..formats.urdf import files as urdf
from ..formats.urdf import mesh_paths
from ..formats.urdf.from_linkage import urdf_from_linkage
from ..solver import VartError
from .errors import IoError
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
                binary: bool = True, links=None, keep_meshes: bool = True) -> ExportResult:
    """Write the real robot of ``scene`` (default: the context's) to the URDF file ``path``
    and its meshes to ``<stem>_meshes/`` next to it. ``name``: the robot name (default: that
    of the imported URDF, else the file's stem). ``binary``: binary STL (else ASCII).
    ``links``: names of link objects; when given, only the robots (sets of links connected
    by real joints) that contain one of them are written. ``keep_meshes``: an imported
    visual whose geometry is unchanged names its original mesh file (else every visual is
    written as an STL, a self-contained export). Raises :class:`IoError`."""
    ctx = context if context is not None else bpy.context
    scene = scene if scene is not None else ctx.scene
    path = os.path.abspath(os.fspath(path))
    stem = os.path.splitext(os.path.basename(path))[0] or "robot"
    folder = os.path.dirname(path)
    mesh_rel = f"{_safe(stem)}_meshes"
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
    template = source_template(obs, real, folder, warnings)
    robot_name = name or (template.name if template is not None and template.name else stem)

    depsgraph = depsgraph_of(ctx, scene)
    visuals, files, used = {}, [], set()
    for n in real:
        ob = obs[n]
        T = P.rigid_and_scale(P.observe(ob), n)[0]
        geo = geometry_objects(ob, warnings)
        vis = []
        for g in geo:
            same = _unchanged_source(g, ob, folder) if keep_meshes else None
            if same is not None:
                mat_name, rgba = _colour(g)
                vis.append(dataclasses.replace(same, name=g.name, material_name=mat_name,
                                               rgba=rgba))
                continue
            tri_v, tri_i = mesh_in_frame(g, depsgraph, T)
            if len(tri_i) == 0:
                continue
            base = _safe(n) if len(geo) == 1 else f"{_safe(n)}__{_safe(g.name)}"
            fname = base + ".stl"
            k = 1
            while fname.lower() in used:
                fname = f"{base}_{k}.stl"
                k += 1
            used.add(fname.lower())
            files.append((os.path.join(folder, mesh_rel, fname), tri_v, tri_i, g.name))
            mat_name, rgba = _colour(g)
            vis.append(urdf.Visual(geometry=urdf.Mesh(f"{mesh_rel}/{fname}"), name=g.name,
                                   material_name=mat_name, rgba=rgba))
        visuals[n] = tuple(vis)
    try:
        robot, more = urdf_from_linkage(lk, robot_name, visuals=visuals, template=template)
    except (VartError, urdf.UrdfError) as e:
        raise IoError(f"cannot export: {e}") from None
    warnings.extend(more)
    try:
        if files:
            try:
                os.makedirs(os.path.join(folder, mesh_rel), exist_ok=True)
            except OSError as e:
                raise IoError(f"cannot write '{os.path.join(folder, mesh_rel)}': "
                              f"{e.strerror or e}") from None
        for fpath, v, t, label in files:
            stl.write_stl(fpath, v, t, binary=binary, name=label)
        urdf.save_urdf(robot, path)
    except OSError as e:
        raise IoError(str(e)) from None
    return ExportResult(path, robot, [f[0] for f in files], warnings)


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


def _unchanged_source(g, link_ob, folder):
    """The URDF visual naming the mesh file ``g`` was imported from, when its geometry is
    unchanged since (:func:`.visuals.fingerprint`) and it still hangs directly from its link
    (a ``package://`` name as written; another path re-resolved relative to ``folder``); else
    None (the export writes an STL of what ``g`` shows)."""
    rec = g.get(SOURCE_MESH_KEY)
    if rec is None or g.parent != link_ob or g.type != 'MESH':
        return None
    try:
        if fingerprint(g) != str(rec["fingerprint"]):
            return None
        filename, path = str(rec["filename"]), str(rec["path"])
        origin = urdf.Origin(tuple(rec["xyz"]), tuple(rec["rpy"]))
        scale = tuple(float(x) for x in rec["scale"])
    except (KeyError, TypeError, ValueError, urdf.UrdfError):
        return None  # a damaged record: write the geometry itself
    if not filename.lower().startswith("package://"):
        if not os.path.isfile(path):
            return None
        try:
            filename = os.path.relpath(path, folder).replace(os.sep, "/")
        except ValueError:  # another drive (Windows)
            filename = path
    return urdf.Visual(geometry=urdf.Mesh(filename, scale), origin=origin)


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


def _safe(name: str) -> str:
    """A file-name-safe version of a name."""
    out = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._")
    return out or "mesh"


# ---- the imported URDF as a template ----------------------------------------------------------
def source_template(obs, real, folder, warnings):
    """The URDF the robot was imported from (collisions, inertia tensors, ... for the export),
    with its visuals dropped and its mesh collisions' paths made relative to ``folder``."""
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
            if isinstance(g, urdf.Mesh) and not g.filename.lower().startswith("package://"):
                res = mesh_paths.resolve(g.filename, source, use_env=False)
                if not res.found:
                    dropped.append(g.filename)
                    continue
                try:
                    rel = os.path.relpath(res.path, folder).replace(os.sep, "/")
                except ValueError:  # another drive (Windows)
                    rel = res.path
                c = dataclasses.replace(c, geometry=dataclasses.replace(g, filename=rel))
            cols.append(c)
        links.append(dataclasses.replace(link, visuals=(), collisions=tuple(cols)))
    if dropped:
        warnings.append(f"{len(dropped)} collision mesh(es) of the original URDF not found, "
                        f"left out: {', '.join(sorted(set(dropped))[:5])}")
    return dataclasses.replace(robot, links=tuple(links))
