"""Mesh and material datablocks for the visuals of an imported URDF robot (:mod:`.visuals`):
meshes read from files with Blender's importers, generated primitive meshes and colour
materials; and :class:`_Added`, what an import added to ``bpy.data`` (to remove if it fails).

- Meshes are read with Blender's own importers: ``bpy.ops.wm.stl_import`` and
  ``bpy.ops.wm.ply_import`` (forward Y, up Z: the file's coordinates as they are) and
  ``bpy.ops.wm.obj_import`` with ``forward_axis='Y', up_axis='Z'`` (its defaults, -Z forward
  and Y up, would turn the mesh a quarter turn: URDF meshes are in the link frame, z up, as
  ROS reads them). Several objects in one file are joined into one mesh.
- Collada (``.dae``) is read with pycollada on every Blender (:mod:`vart_addon.formats.collada`:
  node transforms and ``<unit meter>`` applied, ``<up_axis>`` ignored as RViz ignores it;
  Blender 5.0 removed its own importer): one mesh, a material slot per Collada material with
  its diffuse colour.
- ``<box>``, ``<cylinder>`` (32 sides, axis z) and ``<sphere>`` (UV sphere) are generated
  meshes.
"""
from __future__ import annotations

import os

import bmesh
import bpy
import numpy as np

from ..formats.collada import ColladaError, read_collada
from ..formats.urdf import files as urdf

__all__ = ["primitive_mesh", "new_material", "mesh_importer", "read_mesh_file"]

CYLINDER_SIDES = 32
SPHERE_SEGMENTS = (32, 16)

#: bpy.data collections that an import may add to (removed again when it fails).
_DATA = ("objects", "meshes", "materials", "images", "textures", "curves", "collections",
         "node_groups", "lights", "cameras", "actions", "armatures")


class _Added:
    """IDs added to bpy.data since construction, to remove on failure."""

    def __init__(self):
        self.before = {k: set(getattr(bpy.data, k)) for k in _DATA}

    def new(self, kind: str) -> list:
        return [x for x in getattr(bpy.data, kind) if x not in self.before[kind]]

    def remove(self):
        for kind in ("objects",) + tuple(k for k in _DATA if k != "objects"):
            coll = getattr(bpy.data, kind)
            for x in self.new(kind):
                try:
                    coll.remove(x)
                except (ReferenceError, RuntimeError):
                    pass


def primitive_mesh(g) -> "bpy.types.Mesh":
    """A new mesh for a URDF box, cylinder (axis z) or sphere, centred on the origin."""
    bm = bmesh.new()
    try:
        if isinstance(g, urdf.Box):
            bmesh.ops.create_cube(bm, size=1.0)
            bmesh.ops.scale(bm, vec=g.size, verts=bm.verts)  # type: ignore[arg-type]  # stub: list
            name = "box"
        elif isinstance(g, urdf.Cylinder):
            bmesh.ops.create_cone(bm, cap_ends=True, cap_tris=False, segments=CYLINDER_SIDES,
                                  radius1=g.radius, radius2=g.radius, depth=g.length)
            for f in bm.faces:
                f.smooth = len(f.verts) == 4
            for e in bm.edges:
                e.smooth = all(len(f.verts) == 4 for f in e.link_faces)
            name = "cylinder"
        elif isinstance(g, urdf.Sphere):
            bmesh.ops.create_uvsphere(bm, u_segments=SPHERE_SEGMENTS[0],
                                      v_segments=SPHERE_SEGMENTS[1], radius=g.radius)
            for f in bm.faces:
                f.smooth = True
            name = "sphere"
        else:
            raise TypeError(f"not a primitive: {g!r}")
        mesh = bpy.data.meshes.new(name)
        bm.to_mesh(mesh)
    finally:
        bm.free()
    return mesh


def new_material(name: str, rgba) -> "bpy.types.Material":
    """A material of colour ``rgba``: Principled BSDF base colour and alpha, viewport colour."""
    mat = bpy.data.materials.new(name)
    rgba = tuple(float(c) for c in rgba)
    mat.diffuse_color = rgba
    if mat.node_tree is None:  # Blender 4.x: a new material has no nodes until asked
        mat.use_nodes = True
    assert mat.node_tree is not None
    bsdf = next((n for n in mat.node_tree.nodes if n.type == 'BSDF_PRINCIPLED'), None)
    if bsdf is not None:  # (the stubs' NodeSocket has no default_value: its subclasses do)
        bsdf.inputs["Base Color"].default_value = rgba  # type: ignore[attr-defined]
        bsdf.inputs["Alpha"].default_value = rgba[3]  # type: ignore[attr-defined]
    return mat


class _MeshFailure(Exception):
    pass


def mesh_importer(ext: str):
    """``(operator, keyword arguments)`` that reads a mesh file of extension ``ext`` in the
    file's own coordinates (z up, no rotation, no unit scaling), or raises _MeshFailure."""
    ext = ext.lower()
    if ext == ".stl":
        return bpy.ops.wm.stl_import, dict(forward_axis='Y', up_axis='Z', global_scale=1.0,
                                            use_scene_unit=False)
    if ext == ".obj":
        return bpy.ops.wm.obj_import, dict(forward_axis='Y', up_axis='Z', global_scale=1.0,
                                            use_split_objects=False, use_split_groups=False)
    if ext == ".ply":
        return bpy.ops.wm.ply_import, dict(forward_axis='Y', up_axis='Z', global_scale=1.0,
                                            use_scene_unit=False)
    raise _MeshFailure(f"unsupported mesh format {ext or '(no extension)'!r} (vart reads "
                       "STL, OBJ, PLY, DAE)")


def collada_mesh(path: str) -> "bpy.types.Mesh":
    """A new mesh of a ``.dae`` file's triangles (metres, the file's frame), a material slot
    per Collada material (its diffuse colour, or an empty slot). Raises _MeshFailure."""
    try:
        parts = read_collada(path)
    except ColladaError as e:
        raise _MeshFailure(str(e)) from None
    name = os.path.basename(path)
    sizes = [len(p.vertices) for p in parts]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    verts = np.concatenate([p.vertices for p in parts])
    tris = np.concatenate([p.triangles + o for p, o in zip(parts, offsets)])
    slot = np.concatenate([np.full(len(p.triangles), i, np.int32) for i, p in enumerate(parts)])
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(verts))
    mesh.vertices.foreach_set("co", verts.astype(np.float32).ravel())
    mesh.loops.add(3 * len(tris))
    mesh.loops.foreach_set("vertex_index", tris.astype(np.int32).ravel())
    mesh.polygons.add(len(tris))
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * len(tris), 3, dtype=np.int32))
    mesh.polygons.foreach_set("loop_total", np.full(len(tris), 3, np.int32))
    mesh.polygons.foreach_set("material_index", slot)
    for i, part in enumerate(parts):
        mesh.materials.append(None if part.rgba is None else
                              new_material(part.material or f"{name}_{i}", part.rgba))
    mesh.validate()  # degenerate triangles of a file are dropped, not kept broken
    mesh.update()
    return mesh


def read_mesh_file(path: str, context=None) -> "bpy.types.Mesh":
    """Read a mesh file with Blender's importer into one new mesh datablock (vertices in the
    file's coordinates; several objects are joined; object transforms applied). The objects
    the importer made are removed. Raises _MeshFailure."""
    ctx = context if context is not None else bpy.context
    if os.path.splitext(path)[1].lower() == ".dae":
        return collada_mesh(path)
    op, kw = mesh_importer(os.path.splitext(path)[1])
    added = _Added()
    try:
        try:
            result = op(filepath=path, **kw)
        except RuntimeError as e:
            raise _MeshFailure(str(e).strip().removeprefix("Error: ").splitlines()[0]) from None
        if 'FINISHED' not in result:
            raise _MeshFailure("the importer gave up")
        new = added.new("objects")
        meshes = [ob for ob in new if ob.type == 'MESH' and len(ob.data.vertices)]
        if not meshes:
            raise _MeshFailure("no mesh geometry in the file")
        vl = ctx.view_layer if ctx.view_layer is not None else bpy.context.view_layer
        if vl is not None:
            vl.update()  # world matrices of what the importer made
        keep = meshes[0]
        if len(meshes) > 1:
            with ctx.temp_override(active_object=keep, object=keep, selected_objects=meshes,
                                   selected_editable_objects=meshes):
                bpy.ops.object.join()
        mesh = keep.data
        M = np.array(keep.matrix_world, dtype=float)
        if np.abs(M - np.eye(4)).max() > 0:
            mesh.transform(keep.matrix_world)
        mesh.name = os.path.basename(path)
        for ob in added.new("objects"):
            bpy.data.objects.remove(ob)
        for m in added.new("meshes"):
            if m != mesh and m.users == 0:
                bpy.data.meshes.remove(m)
        return mesh
    except BaseException:
        added.remove()
        raise
    finally:  # the view layer lists a removed object as None until it is synced again
        vl = ctx.view_layer if ctx.view_layer is not None else bpy.context.view_layer
        if vl is not None:
            vl.update()
