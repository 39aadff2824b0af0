"""Import a URDF robot into a Blender scene: objects, meshes, materials and vart joints.

What the scene gets (decisions, each tested in ``tests/blender/test_io_urdf*.py``):

- **One Empty per URDF link** (axes), named as the link, at the link frame's world pose; it is
  the vart link (``ob["vart"]``, real, mass and centre of mass from ``<inertial>``). Link
  objects are not Blender-parented to each other: vart's joints hold the tree, and a solve
  writes each link's world matrix.
- **Each ``<visual>`` is a child object of its link's Empty** (Blender parent, identity parent
  inverse) whose local matrix is the visual's ``<origin>`` (times the ``<mesh scale>``): the
  link frame and the visual origins stay apart, and moving a link carries its geometry.
  Visual objects are not links. Selecting geometry in the viewport selects a visual; its
  link is its Blender parent.
- Meshes are read with Blender's own importers: ``bpy.ops.wm.stl_import`` and
  ``bpy.ops.wm.ply_import`` (forward Y, up Z: the file's coordinates as they are) and
  ``bpy.ops.wm.obj_import`` with ``forward_axis='Y', up_axis='Z'`` (its defaults, -Z forward
  and Y up, would turn the mesh a quarter turn: URDF meshes are in the link frame, z up, as
  ROS reads them). Collada (``.dae``) uses ``bpy.ops.wm.collada_import`` where Blender still
  has it (4.x; it was removed in 5.0). Several objects in one file are joined into one mesh;
  each file is read once and its mesh shared by every visual that names it.
- ``<box>``, ``<cylinder>`` (32 sides, axis z) and ``<sphere>`` (UV sphere) are generated
  meshes. A visual's colour becomes a material (Principled BSDF base colour and alpha, and
  the viewport colour) linked to the object (so shared mesh data keeps one colour per visual),
  and the object's colour (Workbench "Object" colouring). Textures are not imported.
- A mesh that cannot be found or read becomes an Empty named like the visual (its filename in
  ``ob["vart_urdf_missing"]``) and is listed in the warnings: never fatal.
- One real vart joint per URDF joint (:func:`~vart_addon.solver.urdf_linkage.linkage_from_urdf`:
  types, frames, limits, q; ``<mimic>`` as the joint's ``mimic`` coupling). The URDF root link
  is a free link (it hangs from its root joint) unless ``fixed_base``, which adds a *virtual*
  fixed joint to the world (exports leave it out). A root link named ``world`` is the ground.
- Names: a link object takes the link's name, or ``name.001``... if an object has it already;
  a joint name already used in the scene gets ``.001``... too (``joints`` maps them).
- Everything goes into a new collection named after the robot, which also keeps the URDF's
  text and path (``collection["vart_urdf"]``) so an export can carry over what Blender does
  not show (collisions, inertia tensors, effort and velocity limits, extra elements).

Failure: a file that cannot be read, malformed XML, an unknown joint type, a broken tree or a
value vart refuses raises :class:`~.errors.IoError` naming the element, before anything is
added; a failure while building (not expected) removes everything added so far. Either the
whole robot is imported or nothing.
"""
from __future__ import annotations

import os

import bmesh
import bpy
import numpy as np
from mathutils import Matrix

from ..bridge import edits as E
from ..bridge import schema as S
from ..bridge.errors import BridgeError
from ..solver import VartError, urdf
from ..solver.urdf_linkage import linkage_from_urdf
from . import mesh_files
from .errors import IoError

__all__ = ["import_urdf", "ImportedRobot", "SOURCE_KEY", "MISSING_KEY", "MAX_SOURCE_CHARS"]

#: Collection property holding the imported URDF: ``{"file": path, "text": URDF text}``.
SOURCE_KEY = "vart_urdf"
#: Property of a placeholder Empty: the filename of the mesh that could not be read.
MISSING_KEY = "vart_urdf_missing"
#: URDF text larger than this (characters) is not kept in the collection (only its path).
MAX_SOURCE_CHARS = 4_000_000

CYLINDER_SIDES = 32
SPHERE_SEGMENTS = (32, 16)

#: bpy.data collections that an import may add to (removed again when it fails).
_DATA = ("objects", "meshes", "materials", "images", "textures", "curves", "collections",
         "node_groups", "lights", "cameras", "actions", "armatures")


class ImportedRobot(dict):
    """What :func:`import_urdf` returns: a dict URDF link name -> its link object (an Empty),
    with attributes ``robot`` (the :class:`~vart_addon.solver.urdf.Robot`), ``collection``,
    ``joints`` (URDF joint name -> scene joint name), ``visuals`` (URDF link name -> its visual
    objects, placeholders included), ``missing`` (mesh filenames not found or not read) and
    ``warnings`` (messages for the user) and ``base_joint`` (the virtual fixed joint of
    ``fixed_base``, else None)."""

    robot: urdf.Robot
    collection: object
    joints: dict
    visuals: dict
    missing: list
    warnings: list
    base_joint: str | None


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


# ---- the Python API ---------------------------------------------------------------------------
def import_urdf(path, *, context=None, scene=None, search_paths=(), q=None, base_pose=None,
                fixed_base: bool = False, use_env: bool = True) -> ImportedRobot:
    """Import the URDF file ``path`` into ``scene`` (default: the scene of ``context``, or the
    current one). ``search_paths``: extra folders for ``package://`` and relative mesh paths
    (see :mod:`.mesh_files`; ``use_env`` adds ROS_PACKAGE_PATH / AMENT_PREFIX_PATH).
    ``q``: URDF joint name -> value (m, rad; 4x4 for floating/planar; absent: 0).
    ``base_pose``: the root link's world pose (4x4; default identity). ``fixed_base``: hold
    the root to the world by a virtual fixed joint.

    Returns an :class:`ImportedRobot` (a dict link name -> object, with the warnings).
    Raises :class:`IoError` (with nothing added to the scene) for a file that cannot be read
    or a URDF that is malformed or that vart refuses."""
    ctx = context if context is not None else bpy.context
    scene = scene if scene is not None else ctx.scene
    path = os.fspath(path)
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise IoError(f"cannot read URDF '{path}': {e.strerror or e}") from None
    try:
        robot = urdf.parse_urdf_string(data, source_name=name)
        lk, umap = linkage_from_urdf(robot, q, base_pose=base_pose, fixed_base=fixed_base)
    except (urdf.UrdfError, VartError) as e:
        msg = str(e)
        raise IoError(msg if msg.startswith(name) else f"{name}: {msg}") from None
    text = data.decode("utf-8", "replace")
    return _Builder(ctx, scene, path, text, robot, lk, umap, search_paths, use_env).run()


# ---- building ---------------------------------------------------------------------------------
class _Builder:
    def __init__(self, ctx, scene, path, text, robot, lk, umap, search_paths, use_env):
        self.ctx, self.scene, self.path, self.text = ctx, scene, os.path.abspath(path), text
        self.robot, self.lk, self.umap = robot, lk, umap
        self.search_paths = [os.fspath(p) for p in search_paths]
        self.use_env = use_env
        self.warnings: list[str] = []
        self.missing: list[str] = []
        self.mesh_cache: dict = {}      # resolved path -> Mesh or failure text
        self.prim_cache: dict = {}      # geometry key -> Mesh
        self.materials: dict = {}       # (name, rgba) -> Material

    def run(self) -> ImportedRobot:
        added = _Added()
        vl = self.ctx.view_layer if self.ctx.view_layer is not None else self.scene.view_layers[0]
        selected = [ob for ob in vl.objects if ob is not None and ob.select_get()]
        active = vl.objects.active
        try:
            out = self._build()
        except BaseException as e:
            added.remove()
            self._restore_selection(vl, selected, active)
            if isinstance(e, (BridgeError, VartError)):
                raise IoError(f"{os.path.basename(self.path)}: {e}") from None
            raise
        self._restore_selection(vl, selected, active)
        return out

    @staticmethod
    def _restore_selection(vl, selected, active):
        try:
            for ob in vl.objects:  # (None: the base of an object just removed, until resynced)
                if ob is not None:
                    ob.select_set(ob in selected)
            vl.objects.active = active
        except (ReferenceError, RuntimeError):
            pass

    def _build(self) -> ImportedRobot:
        robot, lk = self.robot, self.lk
        poses = lk.poses()
        # names: link objects and joints never clash with what the scene has
        link_obj_name, taken = {}, set()
        for link in robot.links:
            if link.name not in lk.links:
                continue  # the 'world' root is the ground
            n = E.unique_joint_name(link.name, _TakenNames(taken))
            taken.add(n)
            link_obj_name[link.name] = n
        scene_joints = set(_scene_joint_names(self.scene))
        joint_name = {}
        for jn in lk.joints:
            joint_name[jn] = E.unique_joint_name(jn, scene_joints)
            scene_joints.add(joint_name[jn])

        coll = bpy.data.collections.new(robot.name or os.path.splitext(os.path.basename(self.path))[0])
        self.scene.collection.children.link(coll)
        coll[SOURCE_KEY] = {"file": self.path,
                            "text": self.text if len(self.text) <= MAX_SOURCE_CHARS else ""}
        size = _axes_size(robot)
        obs = ImportedRobot()
        for link in robot.links:
            if link.name not in link_obj_name:
                continue
            ob = bpy.data.objects.new(link_obj_name[link.name], None)
            ob.empty_display_type = 'ARROWS'
            ob.empty_display_size = size
            coll.objects.link(ob)
            ob.matrix_world = Matrix(poses[link.name].tolist())
            obs[link.name] = ob
            if ob.name != link_obj_name[link.name]:
                raise IoError(f"link {link.name!r}: the object got the name {ob.name!r}")
        visuals = {}
        for link in robot.links:
            parent = obs.get(link.name)
            visuals[link.name] = [self._visual(coll, parent, link, i, v)
                                  for i, v in enumerate(link.visuals)] if parent else []
        if any(v.texture for link in robot.links for v in link.visuals):
            self.warnings.append("textures are not imported (only colours)")

        # vart properties, straight from the linkage
        for n, ob in obs.items():
            rec = E.link_record(lk, n, None)
            S.write_link(ob, mass=rec.mass, com=rec.com, virtual=rec.virtual,
                         root_tree=rec.root_tree)
        for jn, j in lk.joints.items():
            rec = E.joint_record(lk, j, poses, None)
            mimic = None
            if rec.mimic is not None:
                mimic = (joint_name[rec.mimic.leader], rec.mimic.multiplier, rec.mimic.offset)
            S.write_joint(obs[rec.child], joint_name[jn], rec.type,
                          None if rec.parent is None else obs[rec.parent],
                          T_parent_mob=rec.T_parent_mob, T_child_frame=rec.T_child_frame,
                          q=rec.q, lower=rec.lower, upper=rec.upper, pitch=rec.pitch,
                          virtual=rec.virtual, tree=rec.tree, mimic=mimic)
        self._check(obs)

        obs.robot, obs.collection = robot, coll
        urdf_joints = {j.name for j in robot.joints}
        obs.joints = {jn: joint_name[jn] for jn in lk.joints if jn in urdf_joints}
        obs.base_joint = joint_name.get(self.umap.base_joint)
        obs.visuals, obs.missing, obs.warnings = visuals, self.missing, self.warnings
        return obs

    def _check(self, obs):
        """What the scene now says must read back as valid links and joints (the schema's
        own validation, cross-object checks included). That the stored joints reproduce the
        URDF's link poses is tested (tests/blender/test_io_urdf_import.py), not re-checked
        here: building the linkage twice would double the import time of a large robot."""
        S.read_scene(obs.values())

    # ---- visuals --------------------------------------------------------------------------
    def _visual(self, coll, link_ob, link, i, vis):
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
        res = mesh_files.resolve(filename, self.path, self.search_paths, use_env=self.use_env)
        if not res.found:
            return None, res.describe()
        if res.path not in self.mesh_cache:
            try:
                self.mesh_cache[res.path] = read_mesh_file(res.path, self.ctx)
            except _MeshFailure as e:
                self.mesh_cache[res.path] = f"{filename!r} ({res.path}) could not be read: {e}"
        got = self.mesh_cache[res.path]
        return (None, got) if isinstance(got, str) else (got, None)


def _axes_size(robot) -> float:
    """Display size of the link Empties: a third of the median joint offset (2 cm to 25 cm)."""
    d = [float(np.linalg.norm(j.origin.xyz)) for j in robot.joints]
    d = [x for x in d if x > 1e-9]
    return float(min(0.25, max(0.02, np.median(d) / 3.0))) if d else 0.1


class _TakenNames:
    """Object names in bpy.data or already chosen (a container for unique_joint_name)."""

    def __init__(self, chosen):
        self.chosen = chosen

    def __contains__(self, name):
        return name in self.chosen or bpy.data.objects.get(name) is not None


def _scene_joint_names(scene):
    for ob in scene.objects:
        try:
            joints = ob[S.KEY]["joints"]
            yield from joints.keys()
        except (KeyError, TypeError, AttributeError):
            continue


# ---- geometry, materials ----------------------------------------------------------------------
def primitive_mesh(g) -> "bpy.types.Mesh":
    """A new mesh for a URDF box, cylinder (axis z) or sphere, centred on the origin."""
    bm = bmesh.new()
    try:
        if isinstance(g, urdf.Box):
            bmesh.ops.create_cube(bm, size=1.0)
            bmesh.ops.scale(bm, vec=g.size, verts=bm.verts)
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
    bsdf = next((n for n in mat.node_tree.nodes if n.type == 'BSDF_PRINCIPLED'), None)
    if bsdf is not None:
        bsdf.inputs["Base Color"].default_value = rgba
        bsdf.inputs["Alpha"].default_value = rgba[3]
    return mat


class _MeshFailure(Exception):
    pass


def _has_op(module: str, name: str) -> bool:
    return name in dir(getattr(bpy.ops, module))


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
    if ext == ".dae":
        if _has_op("wm", "collada_import"):
            return bpy.ops.wm.collada_import, dict(import_units=True)
        raise _MeshFailure(f"Blender {bpy.app.version_string} cannot read Collada (.dae) "
                           "files (removed in Blender 5.0); convert it to STL, OBJ or PLY")
    raise _MeshFailure(f"unsupported mesh format {ext or '(no extension)'!r} (vart reads "
                       "STL, OBJ, PLY" + (", DAE" if _has_op("wm", "collada_import") else "")
                       + ")")


def read_mesh_file(path: str, context=None) -> "bpy.types.Mesh":
    """Read a mesh file with Blender's importer into one new mesh datablock (vertices in the
    file's coordinates; several objects are joined; object transforms applied). The objects
    the importer made are removed. Raises _MeshFailure."""
    ctx = context if context is not None else bpy.context
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
