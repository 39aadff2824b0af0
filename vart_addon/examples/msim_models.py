"""The linkages and studies of MSim's two analysis examples (issue 23), built without Blender
(numpy and the solver only): :func:`step_probe` (a compliant mini-humanoid probing a step of
unknown height) and :func:`truss_gripper` (a gripper closed on a truss bar whose position is
uncertain). :mod:`.msim` writes them into a scene for *Add Example*.

Physical figures are ROBOTIS OP3's (assets/README.md names the source):
ROBOTIS-GIT/ROBOTIS-OP3-Common at commit 0780e54c (Apache-2.0),
``op3_description/urdf/robotis_op3.structure.*.xacro`` (joint origins and axes, m),
``robotis_op3.inertia.xacro`` (link masses, kg, and centres of mass, m),
``meshes/rl6.stl`` (the foot: its sole 0.0305 m below the ankle roll axis, heel 0.0395 m
behind it, toe 0.0875 m ahead, 0.080 m wide) and ``op3_gazebo/config/position_controller.yaml``
(the servos as springs: ``effort_controllers/JointPositionController`` with proportional gain
``p``, a torque ``p x (set point - angle)``: 50 N m/rad for the leg joints, 10 for the arms').

Frames: world x forward, y left, z up; every OP3 link frame is aligned with the body's at the
zero pose (all the URDF's ``rpy`` are 0).
"""
from __future__ import annotations

import math

import numpy as np

from ..solver import Linkage, se3

# ---- ROBOTIS OP3 (the source above) ------------------------------------------------------------
#: Per leg joint, in chain order from the body: (name without side, origin in the parent link's
#: frame for the right leg (the left mirrors y), axis for the right leg, axis for the left).
OP3_LEG = (
    ("hip_yaw", (0.0, -0.035, 0.0), (0, 0, -1), (0, 0, -1)),
    ("hip_roll", (-0.024, 0.0, -0.0285), (-1, 0, 0), (-1, 0, 0)),
    ("hip_pitch", (0.0241, -0.019, 0.0), (0, -1, 0), (0, 1, 0)),
    ("knee", (0.0, 0.0, -0.11015), (0, -1, 0), (0, 1, 0)),
    ("ank_pitch", (0.0, 0.0, -0.110), (0, 1, 0), (0, -1, 0)),
    ("ank_roll", (-0.0241, 0.019, 0.0), (1, 0, 0), (1, 0, 0)),
)
#: Mass (kg) and centre of mass (right leg's link frame, m) of the link each leg joint carries.
OP3_LEG_MASS = {
    "hip_yaw": (0.01181, (-0.00157, 0.0, -0.00774)),
    "hip_roll": (0.17886, (0.00388, -0.00028, -0.01214)),
    "hip_pitch": (0.11543, (0.00059, 0.01901, -0.08408)),
    "knee": (0.04015, (0.0, 0.02151, -0.05500)),
    "ank_pitch": (0.17886, (-0.02022, 0.01872, 0.01214)),
    "ank_roll": (0.06934, (0.02373, -0.01037, -0.02760)),
}
#: Body, arms and head, lumped into one rigid torso (the arms and head do not move in the
#: study), at the zero pose: per part (mass kg, the joint origins from the body down to it,
#: its inertial origin), in the body frame, m (structure.*.xacro, inertia.xacro).
OP3_TORSO_PARTS = {
    "body": (1.34928, (), (-0.01501, 0.00013, 0.06582)),
    "r_sho_pitch": (0.01176, ((-0.001, -0.06, 0.111),), (0.0, -0.00823, -0.00233)),
    "r_sho_roll": (0.17758, ((-0.001, -0.06, 0.111), (0.019, -0.0285, -0.010)),
                   (-0.01844, -0.04514, 0.00028)),
    "r_el": (0.04127, ((-0.001, -0.06, 0.111), (0.019, -0.0285, -0.010),
                       (0.0, -0.0904, -0.0001)), (-0.01900, -0.07033, 0.00380)),
    "l_sho_pitch": (0.01176, ((-0.001, 0.06, 0.111),), (0.0, 0.00823, -0.00233)),
    "l_sho_roll": (0.17758, ((-0.001, 0.06, 0.111), (0.019, 0.0285, -0.010)),
                   (-0.01844, 0.04514, 0.00028)),
    "l_el": (0.04127, ((-0.001, 0.06, 0.111), (0.019, 0.0285, -0.010),
                       (0.0, 0.0904, -0.0001)), (-0.01900, 0.07033, 0.00380)),
    "head_pan": (0.01176, ((-0.001, 0.0, 0.1365),), (0.00233, 0.0, 0.00823)),
    "head_tilt": (0.13631, ((-0.001, 0.0, 0.1365), (0.010, 0.019, 0.0285)),
                  (0.00230, -0.01863, 0.02770)),
}
#: The foot (rl6.stl, in the ankle roll link's frame, right foot; the left mirrors y): sole
#: height, heel and toe x, outer and inner y (m).
FOOT_SOLE_Z, FOOT_HEEL_X, FOOT_TOE_X = -0.0305, -0.0395, 0.0875
FOOT_OUTER_Y, FOOT_INNER_Y = -0.0525, 0.0275
#: OP3's simulated servos as springs (N m/rad): legs (knee and ankle here), arm joints.
LEG_STIFFNESS, ARM_STIFFNESS = 50.0, 10.0


def torso_mass(parts=tuple(OP3_TORSO_PARTS)) -> tuple[float, np.ndarray]:
    """The mass (kg) and centre of mass (body frame, m) of the torso parts ``parts`` (names of
    :data:`OP3_TORSO_PARTS`) as one rigid body."""
    chosen = [OP3_TORSO_PARTS[n] for n in parts]
    m = sum(p[0] for p in chosen)
    c = sum(mass * (np.sum(np.array(origins, float).reshape(-1, 3), axis=0) + inertial)
            for mass, origins, inertial in chosen) / m
    return m, c


def _rot(axis, angle) -> np.ndarray:
    return se3.so3_exp(np.asarray(axis, float) * angle)


#: The world axis each leg joint turns about in the postures below (the legs are in the
#: zero pose's orientation apart from these turns).
TURN_AXIS = {"hip_yaw": (0, 0, 1), "hip_roll": (1, 0, 0), "hip_pitch": (0, 1, 0),
             "knee": (0, 1, 0), "ank_pitch": (0, 1, 0), "ank_roll": (1, 0, 0)}


def leg_poses(side: str, turns: dict, T_world_body) -> dict:
    """World pose (4x4) of each link of leg ``side`` ("r"/"l") with its joints turned by
    ``turns`` (joint name without side -> angle, rad, about :data:`TURN_AXIS`; missing: 0):
    link name (``r_knee`` for the link the knee carries) -> pose."""
    out, T = {}, np.asarray(T_world_body, float)
    sign = 1.0 if side == "r" else -1.0
    for name, (x, y, z), _, _ in OP3_LEG:
        T = T @ se3.make_pose(_rot(TURN_AXIS[name], turns.get(name, 0.0)), np.array([x, sign * y, z]))
        out[f"{side}_{name}"] = T
    return out


# ---- the step probe ------------------------------------------------------------------------------
#: The probing posture (rad; the hips held, knees and ankles on springs at these rest
#: values). Stance (left) leg: crouched, its foot flat. Probing (right) leg: thigh forward,
#: knee bent, toes raised 0.1 rad so the heel comes down first. Both legs are also rolled
#: (hip roll r, ankle roll -r: the feet stay flat) so that the centre of mass stands over the
#: left sole's centre (:func:`balanced_roll`): balanced on one foot before any contact.
STANCE = {"hip_pitch": -0.3, "knee": 0.6, "ank_pitch": -0.3}
PROBE = {"hip_pitch": -0.7, "knee": 0.8, "ank_pitch": -0.2}
#: The study: step height swept from 0 (the ground) to STEP_MAX (m), STEP_SAMPLES samples.
STEP_MAX, STEP_SAMPLES = 0.05, 51
SPRING_JOINTS = ("knee", "ank_pitch", "ank_roll")


def _posture(roll: float) -> dict:
    """Link poses (body frame) of the probing posture with the legs rolled by ``roll``."""
    rolled = {"hip_roll": roll, "ank_roll": -roll}
    return {"body": np.eye(4), **leg_poses("l", {**STANCE, **rolled}, np.eye(4)),
            **leg_poses("r", {**PROBE, **rolled}, np.eye(4))}


def _com(poses) -> np.ndarray:
    """The whole robot's centre of mass (m) for link poses ``poses``."""
    m, c = torso_mass()
    total, acc = m, m * (poses["body"][:3, :3] @ c + poses["body"][:3, 3])
    for side in ("l", "r"):
        for name, (mass, com) in OP3_LEG_MASS.items():
            T = poses[f"{side}_{name}"]
            local = np.array([com[0], com[1] if side == "r" else -com[1], com[2]])
            total += mass
            acc = acc + mass * (T[:3, :3] @ local + T[:3, 3])
    return acc / total


def _sole_centre(T_foot, side) -> np.ndarray:
    return _foot_point(T_foot, side, 0.5 * (FOOT_HEEL_X + FOOT_TOE_X),
                       0.5 * (FOOT_OUTER_Y + FOOT_INNER_Y))


def balanced_roll() -> float:
    """The legs' roll (rad) that puts the centre of mass over the left sole's centre
    (sideways), by bisection."""
    def off(r):
        P = _posture(r)
        return _com(P)[1] - _sole_centre(P["l_ank_roll"], "l")[1]
    return _bisect(off, -0.5, 0.5)


def _bisect(f, lo: float, hi: float) -> float:
    """A root of ``f`` between ``lo`` and ``hi`` (where its sign changes), by 60 halvings."""
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if (f(mid) > 0) == (f(lo) > 0):
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _foot_point(T_foot, side, x, y_right) -> np.ndarray:
    y = y_right if side == "r" else -y_right
    return (T_foot @ np.array([x, y, FOOT_SOLE_Z, 1.0]))[:3]


def step_probe() -> tuple[Linkage, dict]:
    """The mini-humanoid on its left foot probing a step with its right (see the README):
    ``(linkage, study document)``.

    Links: the torso (``body``) and six per leg (``l_hip_yaw`` ... ``l_ank_roll``: the
    feet), the OP3's; ``step``, virtual. The spanning tree starts at the left sole, fixed to
    the world (``l_sole``, virtual: the stance foot does not slip), climbs the left leg to the
    body and goes down the right leg (hips locked; knees and ankles springs of
    :data:`LEG_STIFFNESS` at rest in the built pose, so q = deflection), then the right heel's
    virtual point-slider ``r_heel`` (from the step to the foot, traversed from the foot)
    carries the step: the heel slides along the step's vertical through it, ``tz`` is the
    heel's height above the step's top, >= 0 (at that limit the heel is on the step; a tree
    joint's limit, which the solver holds exactly). The virtual prismatic ``step`` (world z: the step's top
    above the ground) closes the loop and is what the study sweeps. The left sole's corners
    (``l_heel_out`` ...) are virtual point-plane joints holding them on the ground: the
    study's support points, with the heel once it touches."""
    lk = Linkage()
    m_torso, c_torso = torso_mass()
    # the body upright, placed so the left sole's centre is at the world origin
    local = _posture(balanced_roll())
    T_body = se3.make_pose(np.eye(3), -_sole_centre(local["l_ank_roll"], "l"))
    poses = {n: T_body @ T for n, T in local.items()}
    lk.add_link("body", pose=T_body, mass=m_torso, com=c_torso)
    for side in ("l", "r"):
        for name, _, _, _ in OP3_LEG:
            m, c = OP3_LEG_MASS[name]
            c = (c[0], c[1] if side == "r" else -c[1], c[2])
            lk.add_link(f"{side}_{name}", pose=poses[f"{side}_{name}"], mass=m, com=c)
    foot_l = poses["l_ank_roll"]
    lk.add_joint("l_sole", "fixed", None, "l_ank_roll", virtual=True,
                 world_frame=se3.make_pose(np.eye(3), foot_l[:3, 3]))
    # the left leg from the foot up (each joint's parent: the link below it), the right down
    chain = ["body"] + [f"l_{n}" for n, _, _, _ in OP3_LEG]
    for i in range(len(OP3_LEG) - 1, -1, -1):
        name, _, _, axis = OP3_LEG[i]
        _joint(lk, f"l_{name}", chain[i + 1], chain[i], poses[chain[i + 1]], axis)
    chain = ["body"] + [f"r_{n}" for n, _, _, _ in OP3_LEG]
    for i, (name, _, axis, _) in enumerate(OP3_LEG):
        _joint(lk, f"r_{name}", chain[i], chain[i + 1], poses[chain[i + 1]], axis)
    for side in ("l", "r"):
        for name, _, _, _ in OP3_LEG:
            if name in SPRING_JOINTS:
                lk.set_stiffness(f"{side}_{name}", LEG_STIFFNESS, [0.0])
            else:
                lk.lock_joint(f"{side}_{name}")
    # the step under the right heel, carried by the heel's point-slider (its slide along the
    # step's z, so the heel stays straight above the step's point), closed by its prismatic
    foot_r = poses["r_ank_roll"]
    heel = _foot_point(foot_r, "r", FOOT_HEEL_X, 0.5 * (FOOT_OUTER_Y + FOOT_INNER_Y))
    top = se3.make_pose(np.eye(3), np.array([heel[0], heel[1], 0.0]))
    lk.add_link("step", pose=top, virtual=True)
    lk.add_joint("hold", "fixed", "r_ank_roll", "step", world_frame=top)  # the step below the
    lk.add_joint("r_heel", "point-slider", "step", "r_ank_roll", virtual=True, tree=True,
                 T_parent_mob=np.eye(4),  # foot in the tree, so that r_heel carries it
                 T_child_frame=se3.inverse(foot_r) @ se3.make_pose(np.eye(3), heel),
                 lower=[-math.inf] * 3 + [0.0], upper=[math.inf] * 4)
    lk.remove_joint("hold")
    lk.add_joint("step", "prismatic", None, "step", world_frame=top, virtual=True, tree=False,
                 lower=[-STEP_LIMIT], upper=[STEP_LIMIT])
    for tag, jtype, x, y in CONTACTS:
        lk.add_joint(f"l_{tag}", jtype, None, "l_ank_roll", virtual=True, tree=False,
                     world_frame=se3.make_pose(np.eye(3), _foot_point(foot_l, "l", x, y)))
    lk.set_gravity([0.0, 0.0, -9.81])
    study = {"format": "vart-study", "version": 1, "name": "step",
             "variables": [{"joint": "step", "grid": {"start": 0.0, "stop": STEP_MAX,
                                                      "count": STEP_SAMPLES}}],
             "contacts": [{"joint": f"l_{t[0]}", "when": "always"} for t in CONTACTS]
             + [{"joint": "r_heel", "when": "at_limit"}],
             "chunk": 8, "limit_tol": 1e-6}
    return lk, study


#: The left sole's corners on the ground: (name, joint type, x, y of the right foot's frame).
CONTACTS = (("heel_out", "point-plane", FOOT_HEEL_X, FOOT_OUTER_Y),
            ("heel_in", "point-plane", FOOT_HEEL_X, FOOT_INNER_Y),
            ("toe_in", "point-plane", FOOT_TOE_X, FOOT_INNER_Y),
            ("toe_out", "point-plane", FOOT_TOE_X, FOOT_OUTER_Y))
#: The step's travel (m): from a hole of this depth to a step of this height. (Not a limit
#: at 0: a closure resting exactly on its limit is held there by the limit level for one
#: iteration, which a solve that starts there may take for a stall.)
STEP_LIMIT = 0.2


def _joint(lk, name, parent, child, T_at, axis):
    """A revolute ``name`` at the origin of pose ``T_at`` (world), its z along ``axis`` (the
    URDF's, in that link's frame)."""
    z = T_at[:3, :3] @ np.asarray(axis, float)
    lk.add_joint(name, "revolute", parent, child, world_frame=_frame_z(z, T_at[:3, 3]))


def _frame_z(z, origin) -> np.ndarray:
    z = z / np.linalg.norm(z)
    helper = np.array([0.0, 0.0, 1.0]) if abs(z[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return se3.make_pose(np.column_stack([x, np.cross(z, x), z]), origin)


# ---- the truss gripper ---------------------------------------------------------------------------
#: Per arm joint, from the body: (name without side, origin for the right arm (the left
#: mirrors y), axis right, axis left) (structure.rarm/larm.xacro); masses and centres of mass
#: (right arm's link frame) from inertia.xacro.
OP3_ARM = (
    ("sho_pitch", (-0.001, -0.06, 0.111), (0, -1, 0), (0, 1, 0)),
    ("sho_roll", (0.019, -0.0285, -0.010), (-1, 0, 0), (-1, 0, 0)),
    ("el", (0.0, -0.0904, -0.0001), (1, 0, 0), (1, 0, 0)),
)
OP3_ARM_MASS = {"sho_pitch": (0.01176, (0.0, -0.00823, -0.00233)),
                "sho_roll": (0.17758, (-0.01844, -0.04514, 0.00028)),
                "el": (0.04127, (-0.01900, -0.07033, 0.00380))}
#: The forearm's tip (ra3.stl, the right elbow link's frame, m): the hand's contact point.
FOREARM_TIP = (-0.019, -0.1465, 0.0)
#: The truss bar: a 20 mm square profile (a common 20 x 20 mm aluminium extrusion); the hands
#: press on its two side faces and may slide on them up to its edges.
BAR_WIDTH = 0.020
#: The grasp posture: the upper arms turned 1.0 rad down from the zero pose's horizontal
#: (shoulder roll), the elbows bent inward so the forearm tips touch the bar's faces
#: (:func:`_grasp_elbow`). Shoulder pitch held; shoulder roll and elbow on springs
#: (:data:`ARM_STIFFNESS`) at rest in that pose.
SHOULDER_DOWN = 1.0
#: The study: the bar's sideways offset from where the robot expects it (m), drawn from a
#: normal of this standard deviation truncated to +-BAR_RANGE, BAR_SAMPLES draws.
BAR_STD, BAR_RANGE, BAR_SAMPLES = 0.005, 0.015, 100


def _arm_poses(side: str, turns: dict) -> dict:
    """Body-frame poses of arm ``side``'s links with its joints turned by ``turns`` (name
    without side -> angle about the right arm's URDF axis, rad); the left arm is the right
    one's mirror image (y -> -y)."""
    out, T = {}, np.eye(4)
    for name, xyz, axis, _ in OP3_ARM:
        T = T @ se3.make_pose(_rot(axis, turns.get(name, 0.0)), np.array(xyz, float))
        out[f"r_{name}"] = T
    if side == "r":
        return out
    M = np.diag([1.0, -1.0, 1.0, 1.0])
    return {f"l_{n[2:]}": M @ T @ M for n, T in out.items()}


def _tip(T_el, side) -> np.ndarray:
    x, y, z = FOREARM_TIP
    return (T_el @ np.array([x, y if side == "r" else -y, z, 1.0]))[:3]


def _grasp_elbow() -> float:
    """The elbow angle (rad) that puts the right forearm's tip on the bar's right face
    (y = -BAR_WIDTH / 2) with the shoulder at :data:`SHOULDER_DOWN`, by bisection."""
    def off(b):
        P = _arm_poses("r", {"sho_roll": -SHOULDER_DOWN, "el": b})
        return _tip(P["r_el"], "r")[1] + BAR_WIDTH / 2
    return _bisect(off, math.pi / 2 - SHOULDER_DOWN, math.pi)


def truss_gripper() -> tuple[Linkage, dict]:
    """OP3's torso and arms as a gripper closed on a truss bar whose sideways position is
    uncertain (see the README): ``(linkage, study document)``.

    The torso (``body``, OP3's body link with the head) is the climbing robot, fixed to the
    world (a virtual fixed joint ``mount``); each arm's shoulder pitch is held and its
    shoulder roll and elbow are springs. The bar is a virtual link on the virtual prismatic
    ``bar`` (world y: its offset, swept by a truncated normal); each forearm's tip presses on
    one of its side faces through a virtual point-plane joint (``r_hand``, ``l_hand``: the
    tip slides on the face, along the bar and up and down; ``ty``, up and down, is limited to
    the face's +-BAR_WIDTH / 2: at that limit the hand reaches the bar's edge)."""
    lk = Linkage()
    m, c = torso_mass(("body", "head_pan", "head_tilt"))
    elbow = _grasp_elbow()
    turns = {"sho_roll": -SHOULDER_DOWN, "el": elbow}
    arms = {**_arm_poses("r", turns), **_arm_poses("l", turns)}
    lift = -_tip(arms["r_el"], "r")[2] + 0.5  # the bar's centre 0.5 m above the ground
    T_body = se3.make_pose(np.eye(3), np.array([0.0, 0.0, lift]))
    lk.add_link("body", pose=T_body, mass=m, com=c)
    lk.add_joint("mount", "fixed", None, "body", world_frame=T_body, virtual=True)
    for side in ("r", "l"):
        prev = "body"
        for name, _, axis, axis_l in OP3_ARM:
            mass, com = OP3_ARM_MASS[name]
            link = f"{side}_{name}"
            T = T_body @ arms[link]
            lk.add_link(link, pose=T, mass=mass,
                        com=(com[0], com[1] if side == "r" else -com[1], com[2]))
            _joint(lk, link, prev, link, T, axis if side == "r" else axis_l)
            if name == "sho_pitch":
                lk.lock_joint(link)
            else:
                lk.set_stiffness(link, ARM_STIFFNESS, [0.0])
            prev = link
    centre = 0.5 * (_tip(T_body @ arms["r_el"], "r") + _tip(T_body @ arms["l_el"], "l"))
    T_bar = se3.make_pose(np.eye(3), centre)
    lk.add_link("bar", pose=T_bar, virtual=True)
    lk.add_joint("bar", "prismatic", None, "bar", virtual=True,
                 world_frame=_frame_z(np.array([0.0, 1.0, 0.0]), centre),
                 lower=[-BAR_RANGE], upper=[BAR_RANGE])
    for side, normal in (("r", -1.0), ("l", 1.0)):
        tip = _tip(T_body @ arms[f"{side}_el"], side)
        # the face's frame: z its outward normal (world y), x along the bar, y up
        R = np.column_stack([[1.0, 0.0, 0.0], [0.0, 0.0, normal], [0.0, normal, 0.0]])
        R[:, 1] = np.cross(R[:, 2], R[:, 0])
        W = se3.make_pose(R, tip)
        lk.add_joint(f"{side}_hand", "point-plane", "bar", f"{side}_el", virtual=True,
                     tree=False, T_parent_mob=se3.inverse(T_bar) @ W,
                     T_child_frame=se3.inverse(T_body @ arms[f"{side}_el"]) @ W,
                     lower=[-math.inf] * 3 + [-math.inf, -BAR_WIDTH / 2],
                     upper=[math.inf] * 3 + [math.inf, BAR_WIDTH / 2])
    lk.set_gravity([0.0, 0.0, -9.81])
    study = {"format": "vart-study", "version": 1, "name": "bar",
             "variables": [{"joint": "bar", "truncnormal": {
                 "mean": 0.0, "std": BAR_STD, "low": -BAR_RANGE, "high": BAR_RANGE}}],
             "samples": BAR_SAMPLES, "seed": 1, "limit_tol": 1e-6,
             # each draw from the grasp as built: a warm start from the previous draw would
             # carry a hand left at the bar's edge into the next (the solve stops there)
             "chunk": 1}
    return lk, study
