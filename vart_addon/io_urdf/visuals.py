"""The objects of a URDF robot's visuals, made by an import (:mod:`.importer`) from the meshes
and materials of :mod:`.mesh_data`.

- **Each ``<visual>`` is a child object of its link's Empty** (Blender parent, identity parent
  inverse) whose local matrix is the visual's ``<origin>`` (times the ``<mesh scale>``): the
  link frame and the visual origins stay apart, and moving a link carries its geometry.
  Visual objects are not links. Selecting geometry in the viewport selects a visual; its
  link is its Blender parent.
- Each mesh file is read once and its mesh shared by every visual that names it.
- A visual's colour becomes a material (Principled BSDF base colour and alpha, and the
  viewport colour) linked to the object (so shared mesh data keeps one colour per visual),
  and the object's colour (Workbench "Object" colouring). Textures are not imported.
- A visual read from a mesh file remembers the file and a fingerprint of its geometry
  (``ob["vart_urdf_mesh"]``): an export names the same file while the geometry is unchanged.
- A mesh that cannot be found or read becomes an Empty named like the visual (its filename in
  ``ob["vart_urdf_missing"]``) and is listed in the warnings: never fatal.
"""
from __future__ import annotations

import os

import bpy
import numpy as np
from mathutils import Matrix

from ..formats.urdf import files as urdf
from ..formats.urdf import mesh_paths
from .mesh_data import _MeshFailure, new_material, primitive_mesh, read_mesh_file

__all__ = ["VisualBuilder", "MISSING_KEY", "SOURCE_MESH_KEY", "fingerprint"]

#: Property of a placeholder Empty: the filename of the mesh that could not be read.
MISSING_KEY = "vart_urdf_missing"
#: Property of a visual read from a mesh file: where it came from and what it looked like
#: (:func:`source_record`), so an export can name the same file when nothing changed.
SOURCE_MESH_KEY = "vart_urdf_mesh"


def fingerprint(ob) -> str:
    """A digest of what a visual object shows relative to its parent: its mesh data (vertex
    coordinates and face indices), its local transform, its parent inverse and how many
    modifiers it has. Any edit a user makes to the geometry changes it."""
    import hashlib
    h = hashlib.sha1()
    me = ob.data
    co = np.empty(3 * len(me.vertices), dtype=np.float32)
    me.vertices.foreach_get("co", co)
    loops = np.empty(len(me.loops), dtype=np.int32)
    me.loops.foreach_get("vertex_index", loops)
    for a in (co, loops, np.array(ob.matrix_basis, dtype=np.float32),
              np.array(ob.matrix_parent_inverse, dtype=np.float32),
              np.array([len(me.polygons), len(ob.modifiers)], dtype=np.int64)):
        h.update(a.tobytes())
    return h.hexdigest()


def source_record(ob, filename: str, path: str, vis) -> dict:
    """What :data:`SOURCE_MESH_KEY` holds for a visual made from mesh file ``filename`` (as
    the URDF wrote it; ``path`` where it was found) for URDF visual ``vis``."""
    return {"filename": filename, "path": path, "xyz": list(vis.origin.xyz),
            "rpy": list(vis.origin.rpy), "scale": list(vis.geometry.scale),
            "fingerprint": fingerprint(ob)}


class VisualBuilder:
    """Makes the visual objects of one import, sharing mesh and material datablocks between
    them. A mesh that cannot be read is named in ``missing`` and ``warnings`` (the lists
    given, which the import returns)."""

    def __init__(self, ctx, path, search_paths, use_env, warnings, missing):
        self.ctx, self.path = ctx, path
        self.search_paths = [os.fspath(p) for p in search_paths]
        self.use_env = use_env
        self.warnings, self.missing = warnings, missing
        self.mesh_cache: dict = {}      # resolved path -> Mesh or failure text
        self.prim_cache: dict = {}      # geometry key -> Mesh
        self.materials: dict = {}       # (name, rgba) -> Material
        self.found: dict = {}           # mesh filename -> the file it resolved to

    def visual(self, coll, link_ob, link, i, vis):
        """A new object in ``coll`` for ``vis``, visual ``i`` of ``link``, child of
        ``link_ob``: its mesh, or an Empty standing in for a mesh that cannot be read."""
        base = vis.name or (f"{link.name}_visual" if len(link.visuals) == 1
                            else f"{link.name}_visual_{i}")
        T = vis.origin.matrix()
        g = vis.geometry
        mesh, problem = None, None
        if isinstance(g, urdf.Mesh):
            T = T @ np.diag(list(g.scale) + [1.0])
            mesh, problem = self._mesh_file(g.filename)
        else:
            mesh = self._primitive(g)
        if mesh is None:
            ob = bpy.data.objects.new(f"{base} (missing)", None)
            ob.empty_display_type = 'CUBE'
            ob.empty_display_size = 0.02
            ob[MISSING_KEY] = g.filename
            self.missing.append(g.filename)
            self.warnings.append(f"link {link.name!r}: mesh {problem}; an Empty stands in")
        else:
            ob = bpy.data.objects.new(base, mesh)
        coll.objects.link(ob)
        ob.parent = link_ob
        ob.matrix_parent_inverse = Matrix.Identity(4)
        ob.matrix_basis = Matrix(T.tolist())
        if mesh is not None and isinstance(g, urdf.Mesh):
            ob[SOURCE_MESH_KEY] = source_record(ob, g.filename, self.found[g.filename], vis)
        if vis.rgba is not None:
            rgba = tuple(float(c) for c in vis.rgba)
            ob.color = rgba
            if mesh is not None:
                mat = self._material(vis.material_name or f"{link.name}_color", rgba)
                if not mesh.materials:
                    mesh.materials.append(None)
                for slot in ob.material_slots:
                    slot.link = 'OBJECT'
                    slot.material = mat
        return ob

    def _material(self, name, rgba):
        key = (name, rgba)
        mat = self.materials.get(key)
        if mat is None:
            mat = self.materials[key] = new_material(name, rgba)
        return mat

    def _primitive(self, g):
        if isinstance(g, urdf.Box):
            key = ("box", g.size)
        elif isinstance(g, urdf.Cylinder):
            key = ("cylinder", g.radius, g.length)
        else:
            key = ("sphere", g.radius)
        if key not in self.prim_cache:
            self.prim_cache[key] = primitive_mesh(g)
        return self.prim_cache[key]

    def _mesh_file(self, filename):
        """(Mesh, None) or (None, what went wrong)."""
        res = mesh_paths.resolve(filename, self.path, self.search_paths, use_env=self.use_env)
        if not res.found:
            return None, res.describe()
        self.found[filename] = res.path
        if res.path not in self.mesh_cache:
            try:
                self.mesh_cache[res.path] = read_mesh_file(res.path, self.ctx)
            except _MeshFailure as e:
                self.mesh_cache[res.path] = f"{filename!r} ({res.path}) could not be read: {e}"
        got = self.mesh_cache[res.path]
        return (None, got) if isinstance(got, str) else (got, None)
