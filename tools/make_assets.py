#!/usr/bin/env python3
"""Generate the robots of ``assets/`` (a dev tool: not shipped; the files it writes are).

    .venv/bin/python tools/make_assets.py          # rewrites assets/*/ (deterministic)
    .venv/bin/python tools/make_assets.py --check  # exit 1 if the committed files differ

Everything here is made from primitives by this script, so the assets are ours to give away
(CC0-1.0, see ``assets/README.md``). Pure Python + numpy; URDF through vart's own writer
(:mod:`vart_addon.formats.urdf.files`), STL through :mod:`vart_addon.formats.stl`.

- ``athlete/athlete.urdf``: an ATHLETE-like hexapod. A hexagonal deck (``meshes/deck.stl``)
  with a side camera on a mast, and six limbs of six joints each: hip yaw, hip pitch, knee
  pitch, ankle pitch, ankle roll and a wheel (continuous). At q = 0 the limbs stick straight
  out; :data:`vart_addon.examples.STANDING` is the pose the examples stand it in.
- ``fourbar/fourbar.urdf``: a crank-rocker in the x-z plane (joint axes along -y, so positive
  angles turn counter-clockwise in the front view); the tree is crank, coupler and rocker, and
  q = 0 is assembled, so the closing joint (coupler-rocker) can be added where the two meet.
- ``slider_crank/slider_crank.urdf``: crank, connecting rod and slider on a rail, assembled at
  q = 0; the examples close it with a revolute joint between rod and slider.
- ``stewart/stewart.urdf``: a 6-UPS Stewart platform: per leg a universal joint at the base
  (two revolutes and a yoke), a prismatic actuator; the platform hangs from the base by a
  floating joint. The six spherical joints at the platform (URDF has no such type) are added
  by the examples, assembled at q = 0.

The modular tower (90 four-bar cells: 270 tree joints, 90 closures) is generated at load time
by :func:`vart_addon.examples.tower.build_tower` instead of being stored.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import re
import sys
import tempfile

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from solid_inertia import uniform_inertial  # noqa: E402
from vart_addon.formats.stl import read_stl, stl_bytes  # noqa: E402
from vart_addon.formats.urdf import files as U  # noqa: E402

ASSETS = REPO / "assets"

# ---- colours (sRGB-ish RGBA) ---------------------------------------------------------------
WHITE = (0.86, 0.86, 0.84, 1.0)
SILVER = (0.62, 0.64, 0.68, 1.0)
DARK = (0.12, 0.12, 0.13, 1.0)
JOINT = (0.30, 0.32, 0.36, 1.0)
ORANGE = (0.95, 0.45, 0.08, 1.0)
BLUE = (0.16, 0.32, 0.62, 1.0)
GOLD = (0.85, 0.65, 0.20, 1.0)
STEEL = (0.45, 0.50, 0.56, 1.0)
RED = (0.75, 0.16, 0.12, 1.0)
GREEN = (0.20, 0.55, 0.30, 1.0)

#: One material per colour (by name) instead of one per visual.
COLOUR_NAMES = {WHITE: "white", SILVER: "silver", DARK: "dark", JOINT: "joint",
                ORANGE: "orange", BLUE: "blue", GOLD: "gold", STEEL: "steel", RED: "red",
                GREEN: "green"}

HALF_PI = math.pi / 2


def O(xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0)) -> U.Origin:
    return U.Origin(tuple(float(v) for v in xyz), tuple(float(v) for v in rpy))


def vis(name, geometry, rgba, xyz=(0, 0, 0), rpy=(0, 0, 0)) -> U.Visual:
    return U.Visual(geometry=geometry, origin=O(xyz, rpy), name=name,
                    material_name=COLOUR_NAMES[rgba],
                    rgba=tuple(float(c) for c in rgba))


def box(name, size, rgba, xyz=(0, 0, 0), rpy=(0, 0, 0)) -> U.Visual:
    return vis(name, U.Box(tuple(float(s) for s in size)), rgba, xyz, rpy)


def cyl(name, r, length, rgba, xyz=(0, 0, 0), rpy=(0, 0, 0)) -> U.Visual:
    """A cylinder; ``rpy`` turns its axis (z) where it should point."""
    return vis(name, U.Cylinder(float(r), float(length)), rgba, xyz, rpy)


def cyl_y(name, r, length, rgba, xyz=(0, 0, 0)) -> U.Visual:
    """A cylinder along y (a pin of a joint about y)."""
    return cyl(name, r, length, rgba, xyz, (HALF_PI, 0, 0))


def cyl_x(name, r, length, rgba, xyz=(0, 0, 0)) -> U.Visual:
    return cyl(name, r, length, rgba, xyz, (0, HALF_PI, 0))


def inertial(mass, xyz=(0, 0, 0)) -> U.Inertial:
    i = max(mass * 0.01, 1e-5)
    return U.Inertial(mass=float(mass), origin=O(xyz), inertia=(i, 0.0, 0.0, i, 0.0, i))


def limit(lo, hi, effort=100.0, velocity=1.0) -> U.Limit:
    return U.Limit(float(lo), float(hi), float(effort), float(velocity))


def joint(name, jtype, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0), axis=(1, 0, 0), lim=None):
    return U.Joint(name, jtype, parent, child, O(xyz, rpy), tuple(float(a) for a in axis),
                   lim)


# ---- meshes -----------------------------------------------------------------------------------
def prism(n: int, radius: float, height: float, phase: float = 0.0):
    """A regular n-gon prism centred on the origin, axis z: (vertices, triangles)."""
    a = phase + 2 * np.pi * np.arange(n) / n
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)
    v = np.vstack([np.column_stack([ring, np.full(n, -height / 2)]),
                   np.column_stack([ring, np.full(n, height / 2)]),
                   [[0, 0, -height / 2], [0, 0, height / 2]]])
    bot, top = 2 * n, 2 * n + 1
    tris = []
    for i in range(n):
        j = (i + 1) % n
        tris += [(i, j, n + j), (i, n + j, n + i),      # side (outward)
                 (bot, j, i), (top, n + i, n + j)]      # bottom (down), top (up)
    return v, np.array(tris)


# ---- the hexapod ------------------------------------------------------------------------------
#: Hexapod dimensions (m): hip radius on the deck, segment lengths, wheel.
HIP_RADIUS = 0.9
DECK_RADIUS = 1.05
DECK_THICKNESS = 0.25
HIP_OFFSET = 0.15
THIGH = 0.8
SHIN = 0.8
ANKLE = 0.25
FOOT = 0.10
WHEEL_RADIUS = 0.15
WHEEL_WIDTH = 0.12
CAMERA_AT = (0.0, -0.62, 0.48)     # camera link origin in the deck frame

# The hexapod's physical figures: sources, and what is not published, in assets/README.md
# ("Physical figures of the ATHLETE-like hexapod"). Its size is JPL's first-generation ATHLETE's.
#: Mass of the whole vehicle (kg): first-generation ATHLETE, "weigh approximately 850 kg".
VEHICLE_MASS = 850.0
#: The links' shares of VEHICLE_MASS (relative weights): NOT published, the model's own.
MASS_SHARE = {"deck": 300.0, "camera": 2.0, "hip": 8.0, "thigh": 12.0, "shin": 10.0,
              "ankle": 4.0, "foot": 3.0, "wheel": 6.0}
#: Limb joints' effort limit (N m): DERIVED, a lower bound of the real robot's (no ATHLETE
#: joint torque is published): the least effort the limb joints could share and stand with
#: the published 300 kg payload on five wheels, 1175 N m (tools/derive_athlete_limits.py),
#: rounded down. Velocity limit (rad/s): NOT published, the model's own.
LIMB_EFFORT, LIMB_VELOCITY = 1170.0, 1.0


def link_mass(part: str) -> float:
    """The mass (kg) of the hexapod link ``part`` (a :data:`MASS_SHARE` key)."""
    per_limb = sum(MASS_SHARE.values()) - MASS_SHARE["deck"] - MASS_SHARE["camera"]
    return VEHICLE_MASS * MASS_SHARE[part] / (sum(MASS_SHARE.values()) + 5 * per_limb)


#: (joint suffix, child suffix, axis, offset along the parent's x, limits)
LIMB = (("hip_yaw", "hip", (0, 0, 1), None, (-1.2, 1.2)),
        ("hip_pitch", "thigh", (0, 1, 0), HIP_OFFSET, (-2.0, 2.0)),
        ("knee_pitch", "shin", (0, 1, 0), THIGH, (-2.6, 2.6)),
        ("ankle_pitch", "ankle", (0, 1, 0), SHIN, (-2.0, 2.0)),
        ("ankle_roll", "foot", (1, 0, 0), ANKLE, (-1.5, 1.5)),
        ("wheel", "wheel", (0, 1, 0), FOOT, None))


def athlete() -> tuple[U.Robot, dict]:
    deck_v, deck_t = prism(6, DECK_RADIUS, DECK_THICKNESS)
    meshes = {"meshes/deck.stl": (deck_v, deck_t)}
    deck = (
        vis("deck_body", U.Mesh("meshes/deck.stl"), WHITE),
        box("deck_cargo", (0.9, 0.7, 0.18), BLUE, (0.05, 0.12, DECK_THICKNESS / 2 + 0.09)),
        cyl("deck_antenna", 0.02, 0.5, SILVER, (-0.35, 0.3, DECK_THICKNESS / 2 + 0.25)),
        box("deck_mast", (0.06, 0.06, CAMERA_AT[2] - DECK_THICKNESS / 2),
            SILVER, (CAMERA_AT[0], CAMERA_AT[1] + 0.02,
                     (CAMERA_AT[2] + DECK_THICKNESS / 2) / 2 - 0.04)))
    camera = (box("camera_body", (0.14, 0.2, 0.12), ORANGE),
              cyl("camera_lens", 0.045, 0.08, DARK, (0.0, -0.13, 0.0), (HALF_PI, 0, 0)))
    # inertia derived: the link's mass spread uniformly over its own visual solids
    links = [U.Link("deck", deck, inertial=uniform_inertial(link_mass("deck"), deck, meshes)),
             U.Link("camera", camera, inertial=uniform_inertial(link_mass("camera"), camera))]
    joints = [joint("camera_mount", "fixed", "deck", "camera", CAMERA_AT)]
    w2 = 0.05  # half width of the limb segments
    for k in range(6):
        phi = k * math.pi / 3
        parent = "deck"
        for jn, cn, axis, offset, lim in LIMB:
            child = f"leg{k}_{cn}"
            if offset is None:
                xyz, rpy = (HIP_RADIUS * math.cos(phi), HIP_RADIUS * math.sin(phi), 0.0), \
                    (0.0, 0.0, phi)
            else:
                xyz, rpy = (offset, 0.0, 0.0), (0.0, 0.0, 0.0)
            jtype = "continuous" if lim is None else "revolute"
            joints.append(joint(f"leg{k}_{jn}", jtype, parent, child, xyz, rpy, axis,
                                None if lim is None else
                                limit(*lim, effort=LIMB_EFFORT, velocity=LIMB_VELOCITY)))
            shape = _limb_visuals(child, cn, w2)
            links.append(U.Link(child, shape, inertial=uniform_inertial(link_mass(cn), shape)))
            parent = child
    robot = U.Robot("athlete", tuple(links), tuple(joints))
    return robot, {"meshes/deck.stl": stl_bytes(deck_v, deck_t, name="deck")}


def _limb_visuals(name, part, w2):
    if part == "hip":
        return (cyl(f"{name}_yaw", 0.1, 0.22, JOINT),
                box(f"{name}_arm", (HIP_OFFSET, 2 * w2 + 0.04, 0.12), SILVER,
                    (HIP_OFFSET / 2, 0, 0)))
    if part == "thigh":
        return (cyl_y(f"{name}_pin", 0.08, 0.2, JOINT),
                box(f"{name}_beam", (THIGH, 2 * w2 + 0.02, 0.12), WHITE, (THIGH / 2, 0, 0)))
    if part == "shin":
        return (cyl_y(f"{name}_pin", 0.075, 0.18, JOINT),
                box(f"{name}_beam", (SHIN, 2 * w2, 0.1), WHITE, (SHIN / 2, 0, 0)))
    if part == "ankle":
        return (cyl_y(f"{name}_pin", 0.06, 0.16, JOINT),
                box(f"{name}_beam", (ANKLE, 2 * w2, 0.09), SILVER, (ANKLE / 2, 0, 0)))
    if part == "foot":
        return (cyl_x(f"{name}_roll", 0.055, 0.08, JOINT, (0.02, 0, 0)),
                box(f"{name}_fork_l", (FOOT + 0.04, 0.02, 0.08), SILVER,
                    (FOOT / 2 + 0.02, WHEEL_WIDTH / 2 + 0.02, 0)),
                box(f"{name}_fork_r", (FOOT + 0.04, 0.02, 0.08), SILVER,
                    (FOOT / 2 + 0.02, -WHEEL_WIDTH / 2 - 0.02, 0)),
                box(f"{name}_bridge", (0.04, WHEEL_WIDTH + 0.06, 0.08), SILVER, (0.04, 0, 0)))
    if part == "wheel":
        return (cyl_y(f"{name}_tyre", WHEEL_RADIUS, WHEEL_WIDTH, DARK),
                cyl_y(f"{name}_hub", 0.06, WHEEL_WIDTH + 0.02, GOLD))
    raise ValueError(part)


# ---- the four-bar -----------------------------------------------------------------------------
FOURBAR = dict(crank=0.3, coupler=0.7, rocker=0.5, ground=0.8, height=0.5, angle=60.0)


def circle_meet(p, r1, q, r2, upper=True):
    """A point at distance r1 from p and r2 from q (2D), on the left of p->q if ``upper``."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    d = q - p
    L = float(np.hypot(*d))
    a = (r1 ** 2 - r2 ** 2 + L ** 2) / (2 * L)
    h = math.sqrt(max(r1 ** 2 - a ** 2, 0.0))
    u = d / L
    n = np.array([-u[1], u[0]])
    return p + a * u + (h if upper else -h) * n


def _xz(x, z):
    return (float(x), 0.0, float(z))


def _about_minus_y(angle):
    """rpy of a frame turned by ``angle`` about -y (counter-clockwise in the front view)."""
    return (0.0, -float(angle), 0.0)


def fourbar() -> tuple[U.Robot, dict]:
    f = FOURBAR
    a, b, c, d, h = f["crank"], f["coupler"], f["rocker"], f["ground"], f["height"]
    t2 = math.radians(f["angle"])
    B = np.array([a * math.cos(t2), a * math.sin(t2)])
    C = circle_meet(B, b, (d, 0.0), c)
    t3 = math.atan2(*(C - B)[::-1])
    t4 = math.atan2(*(C - np.array([d, 0.0]))[::-1])
    ax = (0.0, -1.0, 0.0)
    w = 0.04
    base = U.Link("base", (
        box("base_plate", (d + 0.3, 0.2, 0.04), STEEL, (d / 2, 0.02, 0.02)),
        box("base_post_a", (0.06, 0.04, h), STEEL, (0.0, 0.06, h / 2)),
        box("base_post_d", (0.06, 0.04, h), STEEL, (d, 0.06, h / 2)),
        box("base_bar", (d, 0.03, 0.03), STEEL, (d / 2, 0.06, h)),
    ), inertial=inertial(5.0))
    crank = U.Link("crank", (box("crank_bar", (a, 0.02, w), RED, (a / 2, 0, 0)),
                             cyl_y("crank_pin", 0.025, 0.1, DARK)), inertial=inertial(0.5))
    coupler = U.Link("coupler", (box("coupler_bar", (b, 0.02, w), GOLD, (b / 2, -0.03, 0)),
                                 cyl_y("coupler_pin", 0.025, 0.1, DARK, (0, -0.02, 0)),
                                 cyl_y("coupler_end", 0.025, 0.1, DARK, (b, -0.02, 0))),
                     inertial=inertial(1.0))
    rocker = U.Link("rocker", (box("rocker_bar", (c, 0.02, w), BLUE, (c / 2, 0, 0)),
                               cyl_y("rocker_pin", 0.025, 0.1, DARK)), inertial=inertial(0.7))
    joints = (
        joint("A", "continuous", "base", "crank", _xz(0, h), _about_minus_y(t2), ax),
        joint("B", "continuous", "crank", "coupler", (a, 0, 0), _about_minus_y(t3 - t2), ax),
        joint("D", "continuous", "base", "rocker", _xz(d, h), _about_minus_y(t4), ax))
    return U.Robot("fourbar", (base, crank, coupler, rocker), joints), {}


# ---- the slider-crank -------------------------------------------------------------------------
SLIDER_CRANK = dict(crank=0.2, rod=0.6, height=0.5, angle=60.0)


def slider_crank() -> tuple[U.Robot, dict]:
    s = SLIDER_CRANK
    r, l, h = s["crank"], s["rod"], s["height"]
    t = math.radians(s["angle"])
    B = np.array([r * math.cos(t), r * math.sin(t)])
    xs = B[0] + math.sqrt(l ** 2 - B[1] ** 2)
    phi = math.atan2(-B[1], xs - B[0])
    ax = (0.0, -1.0, 0.0)
    base = U.Link("base", (
        box("base_plate", (1.3, 0.24, 0.04), STEEL, (0.45, 0.0, 0.02)),
        box("base_post", (0.06, 0.04, h), STEEL, (0.0, 0.08, h / 2)),
        box("base_rail", (0.8, 0.06, 0.02), STEEL, (0.65, 0.0, h - 0.045)),
    ), inertial=inertial(5.0))
    crank = U.Link("crank", (cyl_y("crank_disc", r + 0.04, 0.03, RED, (0, 0.04, 0)),
                             cyl_y("crank_pin", 0.02, 0.1, DARK, (r, 0, 0))),
                   inertial=inertial(1.0))
    rod = U.Link("rod", (box("rod_bar", (l, 0.02, 0.04), GOLD, (l / 2, -0.01, 0)),),
                 inertial=inertial(0.6))
    slider = U.Link("slider", (box("slider_block", (0.16, 0.1, 0.07), BLUE),
                               cyl_y("slider_pin", 0.02, 0.12, DARK)), inertial=inertial(1.0))
    joints = (
        joint("crank_joint", "continuous", "base", "crank", _xz(0, h), _about_minus_y(t), ax),
        joint("rod_joint", "continuous", "crank", "rod", (r, 0, 0), _about_minus_y(phi - t),
              ax),
        joint("slide", "prismatic", "base", "slider", _xz(xs, h), (0, 0, 0), (1, 0, 0),
              limit(0.4 - xs - 0.02, 0.8 - xs + 0.02)))
    return U.Robot("slider_crank", (base, crank, rod, slider), joints), {}


# ---- the Stewart platform ---------------------------------------------------------------------
STEWART = dict(base_radius=0.45, platform_radius=0.3, height=0.6, base_z=0.1, half=12.0)


def stewart_points():
    """(base points, platform points in the platform frame, platform origin) of the 6 legs."""
    s = STEWART
    h = s["half"]
    # leg i runs from a base point near 0, 120 or 240 degrees to the nearer platform point of
    # the pair around 60, 180 or 300 degrees
    base_ang = [h, 120 - h, 120 + h, 240 - h, 240 + h, 360 - h]
    top_ang = [60 - 12, 60 + 12, 180 - 12, 180 + 12, 300 - 12, 300 + 12]
    b = [np.array([s["base_radius"] * math.cos(math.radians(a)),
                   s["base_radius"] * math.sin(math.radians(a)), s["base_z"]]) for a in base_ang]
    p = [np.array([s["platform_radius"] * math.cos(math.radians(a)),
                   s["platform_radius"] * math.sin(math.radians(a)), -0.03]) for a in top_ang]
    return b, p, np.array([0.0, 0.0, s["height"]])


def frame_along(x) -> tuple:
    """rpy of a frame whose x axis is ``x`` and whose y axis is horizontal."""
    x = np.asarray(x, float) / np.linalg.norm(x)
    y = np.cross([0.0, 0.0, 1.0], x)
    y /= np.linalg.norm(y)
    z = np.cross(x, y)
    return U.matrix_to_rpy(np.column_stack([x, y, z]))


def stewart() -> tuple[U.Robot, dict]:
    b, p, top = stewart_points()
    links = [U.Link("base", (cyl("base_disc", 0.55, 0.06, STEEL, (0, 0, 0.03)),) + tuple(
        box(f"base_pad{i}", (0.08, 0.08, 0.05), DARK, (bi[0], bi[1], 0.075))
        for i, bi in enumerate(b)), inertial=inertial(10.0)),
        U.Link("platform", (cyl("platform_disc", 0.36, 0.05, GOLD, (0, 0, 0)),
                            box("platform_box", (0.2, 0.2, 0.08), BLUE, (0, 0, 0.065))),
               inertial=inertial(3.0))]
    joints = [joint("platform_float", "floating", "base", "platform", top)]
    for i in range(6):
        tip = top + p[i]
        L = float(np.linalg.norm(tip - b[i]))
        rpy = frame_along(tip - b[i])
        links += [U.Link(f"leg{i}_yoke", (cyl("leg%d_yoke_knuckle" % i, 0.03, 0.08, DARK),),
                         inertial=inertial(0.1)),
                  U.Link(f"leg{i}_lower", (cyl_x(f"leg{i}_cylinder", 0.035, 0.55 * L, SILVER,
                                                 (0.3 * L, 0, 0)),), inertial=inertial(0.5)),
                  U.Link(f"leg{i}_upper", (cyl_x(f"leg{i}_rod", 0.018, 0.6 * L, WHITE,
                                                 (-0.3 * L, 0, 0)),
                                           vis(f"leg{i}_ball", U.Sphere(0.03), DARK)),
                         inertial=inertial(0.3))]
        joints += [joint(f"leg{i}_u1", "revolute", "base", f"leg{i}_yoke", b[i], rpy,
                         (0, 0, 1), limit(-1.0, 1.0)),
                   joint(f"leg{i}_u2", "revolute", f"leg{i}_yoke", f"leg{i}_lower",
                         axis=(0, 1, 0), lim=limit(-1.0, 1.0)),
                   joint(f"leg{i}_slide", "prismatic", f"leg{i}_lower", f"leg{i}_upper",
                         (L, 0, 0), axis=(1, 0, 0), lim=limit(-0.2, 0.2))]
    return U.Robot("stewart", tuple(links), tuple(joints)), {}


# ---- writing ----------------------------------------------------------------------------------
ROBOTS = {"athlete": athlete, "fourbar": fourbar, "slider_crank": slider_crank,
          "stewart": stewart}


def files() -> dict:
    """Relative path -> bytes of every generated file."""
    out = {}
    for name, make in ROBOTS.items():
        robot, extra = make()
        used = {v.material_name: v.rgba for link in robot.links for v in link.visuals}
        robot = U.Robot(robot.name, robot.links, robot.joints, tuple(
            U.Material(n, rgba) for n, rgba in sorted(used.items())))
        out[f"{name}/{name}.urdf"] = U.write_urdf(robot).encode("utf-8")
        for rel, data in extra.items():
            out[f"{name}/{rel}"] = data
    return out


def _numbers_rounded(text: str) -> str:
    """URDF text with every number at 9 significant digits and rounding noise near zero
    (below 1e-12) as 0: another numpy, libm or BLAS kernel may differ in the last bit of a
    sine or a product (-5.55e-17 against -5.72e-17 for a zero angle)."""
    def fmt(m):
        v = float(m.group())
        return f"{0.0 if abs(v) < 1e-12 else v:.9g}"
    return re.sub(r"-?\d+\.?\d*(?:e-?\d+)?", fmt, text)


def same(rel: str, committed: pathlib.Path, made: bytes) -> bool:
    """Whether the committed file ``rel`` is what :func:`files` makes, up to the last bits
    of floating point (STL vertices within 1e-6 m, URDF numbers to 9 digits)."""
    if not committed.is_file():
        return False
    if rel.endswith(".stl"):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "made.stl"
            path.write_bytes(made)
            a, b = read_stl(path), read_stl(committed)
        return a.shape == b.shape and bool(np.allclose(a, b, atol=1e-6))
    return _numbers_rounded(committed.read_text()) == _numbers_rounded(made.decode())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with assets/, write nothing")
    ap.add_argument("--out", type=pathlib.Path, default=ASSETS)
    args = ap.parse_args(argv)
    out = files()
    if args.check:
        bad = [rel for rel, data in out.items() if not same(rel, args.out / rel, data)]
        for rel in bad:
            print(f"differs: assets/{rel}")
        return 1 if bad else 0
    for rel, data in out.items():
        path = args.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
            f.write(data)
        tmp = pathlib.Path(f.name)
        tmp.chmod(0o644)
        tmp.replace(path)
        print(f"wrote assets/{rel} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
