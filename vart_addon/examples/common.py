"""What the examples share: the error a build raises (:class:`ExampleError`), what a build
returns (:class:`Built`), float64 poses (:func:`pose`, :func:`at`, :func:`frame_z`), keying a
stored joint value (:func:`key_value`) or any property or channel (:func:`key_path`), the
frame range of a keyed example, the exact frame of a planar joint, small scene look-ups
(joint names, materials), and the real robots of the installed example-robot-data
(:func:`robot_urdf`) with their centre of mass (:func:`centre_of_mass`)."""
from __future__ import annotations

import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..bridge import schema as S
from ..bridge.animation import key_channels
from ..solver import se3

MECHANISM_FRAMES = 96


class ExampleError(RuntimeError):
    """An example could not be built (an operator refused a step); the message says which."""


@dataclass
class Built:
    """What an example added: its collection, link objects by (URDF) name, the names of the
    joints the example added (virtual ones for a story), the joint whose value (or target) is
    keyed, and the frame range to bake."""

    key: str
    collection: object = None
    links: dict = field(default_factory=dict)
    joints: list = field(default_factory=list)
    driven: str = ""
    frames: tuple = (1, 1)


def pose(ob) -> np.ndarray:
    """An object's world pose without scale (4x4)."""
    M = np.array(ob.matrix_world, dtype=float)
    M[:3, :3] /= np.linalg.norm(M[:3, :3], axis=0)
    return M


def at(p, R=None) -> np.ndarray:
    return se3.make_pose(np.eye(3) if R is None else R, np.asarray(p, float))


def frame_z(z, origin) -> np.ndarray:
    """A pose at ``origin`` whose z axis is ``z`` (the joint axis)."""
    z = np.asarray(z, float) / np.linalg.norm(z)
    helper = np.array([0.0, 0.0, 1.0]) if abs(z[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return at(origin, np.column_stack([x, np.cross(z, x), z]))


def key_value(ob, joint: str, key: str, frames_values) -> None:
    """Key a stored joint field (``q`` or ``target_q``) at ``(frame, values)`` pairs (all
    DoF; linear interpolation), then put the stored value back as it was: the scene stays
    in its built pose, and frame 1 of the animation is that pose."""
    group = ob[S.KEY]["joints"][joint]
    S.touched()
    old = list(group[key])
    path = S.q_data_path(joint)[:-len('["q"]')] + f'["{key}"]'
    for frame, values in frames_values:
        group[key] = [float(v) for v in values]
        key_channels(ob, path, float(frame), group="Vart")
    group[key] = old
    set_interpolation(ob, path, 'LINEAR')


def set_interpolation(ob, path: str, mode: str, handles: str | None = None) -> None:
    """Every key of ``ob``'s F-curves on ``path`` interpolated by ``mode`` ('LINEAR',
    'CONSTANT', 'BEZIER'; ``handles``: both handles' type too, e.g. 'AUTO_CLAMPED')."""
    from ..bridge.animation import fcurves_of
    for fc in fcurves_of(ob):
        if fc.data_path == path:
            for kp in fc.keyframe_points:
                kp.interpolation = mode
                if handles is not None:
                    kp.handle_left_type = kp.handle_right_type = handles
            fc.update()


def key_path(ob, path: str, frames_values) -> None:
    """Key ``ob``'s ``location`` or a custom property at ``path`` (its value set first) at
    ``(frame, value)`` pairs, linearly."""
    for frame, value in frames_values:
        if path == "location":
            ob.location = tuple(value)
        else:
            ob.path_resolve(path.rsplit("[", 1)[0])[path.rsplit('"', 2)[1]] = list(value)
        key_channels(ob, path, float(frame), group="Vart")
    set_interpolation(ob, path, 'LINEAR')


def robots_folder() -> Path | None:
    """example-robot-data's ``robots`` folder in this Python's site-packages (cmeel's
    prefix), or None when the package is not installed."""
    roots = [sysconfig.get_paths()["purelib"]] + [p for p in sys.path if p]
    for root in roots:
        folder = Path(root) / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if folder.is_dir():
            return folder
    return None


def robot_urdf(parts: tuple, robot: str) -> Path:
    """The URDF at ``parts`` inside example-robot-data's robots folder; :class:`ExampleError`
    saying how to install the package when it is missing (``robot``: the robot and whose
    description it is, under which licence: "Go2 (its description is Unitree's, MPL-2.0)")."""
    folder = robots_folder()
    path = None if folder is None else folder.joinpath(*parts)
    if path is None or not path.is_file():
        raise ExampleError(f"{robot} comes from the package example-robot-data, not shipped "
                           "with vart: install it into Blender's Python (<blender python> -m "
                           "pip install example-robot-data), then add the example again")
    return path


def centre_of_mass(links: dict) -> np.ndarray:
    """A robot's centre of mass (world, m) from its link objects' stored masses."""
    m, c = [], []
    for ob in links.values():
        rec = S.read_object(ob)[0]
        if rec is not None and rec.mass > 0:
            T = pose(ob)
            m.append(rec.mass)
            c.append(T[:3, :3] @ np.asarray(rec.com) + T[:3, 3])
    return np.asarray(m) @ np.array(c) / np.sum(m)


def _frames(scene, end: int) -> tuple:
    scene.frame_start, scene.frame_end = 1, end
    scene.frame_set(1)
    return 1, end


def _origin(context) -> np.ndarray:
    """Where an example goes: the 3D cursor's location (not its rotation)."""
    return np.array(context.scene.cursor.location, float)


#: Joint frames of the planar mechanisms: z along -y (their URDF axes), exactly: a planar
#: loop moves only while its axes are parallel to the last bit (a rotation made with
#: cos(pi/2) = 6e-17, or read back from the float32 3D cursor, would lock it).
_PLANAR = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def _scene_joint_names(scene):
    from ..shared.selection import joint_names
    return joint_names(scene).keys()


def _material(name, rgba):
    from ..io_urdf.mesh_data import new_material
    return new_material(name, rgba)
