"""Writes the URDF fixtures of the import/export tests (run it to regenerate them).

Everything here was made for the vart test suite and is dedicated to the public domain
(CC0 1.0). The meshes are tiny (tens of triangles), offset from their origins and
asymmetric, so that an axis or frame mistake shows up in the tests:

- ``arm6/``: a 6-DoF arm with a parallel gripper (mimic fingers), relative mesh paths, STL
  (binary and ASCII), OBJ (with MTL), PLY; several visuals per link; a revolute joint
  without ``<limit>``, a continuous joint, a negative axis, a mirrored mesh (scale -1).
- ``rover/rover_description/``: a ROS package layout: ``package://`` paths, a mesh in mm
  (scale 0.001), four wheels on continuous joints sharing one OBJ, a missing mesh, an
  unreadable STL and a format Blender cannot read.
- ``gantry.urdf``: a ``world`` root with prismatic, planar, floating and fixed joints
  (primitives only).
- ``bad/``: files that must be refused: malformed XML, an unknown joint type, a cycle, a
  missing link, a bad number.

Usage: ``python tests/blender/data/make_fixtures.py`` (from the repository root).
"""
from __future__ import annotations

import math
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent


# ---- tiny meshes ------------------------------------------------------------------------------
def box(size, offset=(0, 0, 0)):
    sx, sy, sz = (s / 2 for s in size)
    ox, oy, oz = offset
    v = [(ox + x * sx, oy + y * sy, oz + z * sz) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return v, [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]


def cylinder(radius, length, n=10, offset=(0, 0, 0), axis="z"):
    ox, oy, oz = offset
    v, f = [], []
    for k in range(n):
        a = 2 * math.pi * k / n
        for h in (-length / 2, length / 2):
            p = (radius * math.cos(a), radius * math.sin(a), h)
            if axis == "x":
                p = (p[2], p[0], p[1])
            elif axis == "y":
                p = (p[1], p[2], p[0])
            v.append((ox + p[0], oy + p[1], oz + p[2]))
    for k in range(n):
        a0, a1 = 2 * k, 2 * k + 1
        b0, b1 = 2 * ((k + 1) % n), 2 * ((k + 1) % n) + 1
        f += [(a0, b0, b1), (a0, b1, a1)]
    for k in range(1, n - 1):  # caps as fans
        f += [(0, 2 * (k + 1), 2 * k), (1, 2 * k + 1, 2 * (k + 1) + 1)]
    return v, f


def merge(*parts):
    v, f = [], []
    for pv, pf in parts:
        base = len(v)
        v += pv
        f += [tuple(i + base for i in t) for t in pf]
    return v, f


def _normal(a, b, c):
    u = [b[i] - a[i] for i in range(3)]
    w = [c[i] - a[i] for i in range(3)]
    n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
    length = math.sqrt(sum(x * x for x in n)) or 1.0
    return tuple(x / length for x in n)


def write_stl(path, mesh, binary=True):
    v, f = mesh
    if binary:
        out = bytearray(b"vart test fixture, CC0".ljust(80, b" "))
        out += struct.pack("<I", len(f))
        for t in f:
            a, b, c = (v[i] for i in t)
            out += struct.pack("<12fH", *_normal(a, b, c), *a, *b, *c, 0)
        path.write_bytes(bytes(out))
    else:
        lines = ["solid fixture"]
        for t in f:
            a, b, c = (v[i] for i in t)
            lines.append("facet normal %g %g %g" % _normal(a, b, c))
            lines.append(" outer loop")
            lines += [" vertex %r %r %r" % p for p in (a, b, c)]
            lines.append(" endloop")
            lines.append("endfacet")
        lines.append("endsolid fixture")
        path.write_text("\n".join(lines) + "\n")


def write_obj(path, mesh, material=None, rgb=(0.8, 0.8, 0.8)):
    v, f = mesh
    lines = ["# vart test fixture, CC0"]
    if material:
        lines.append(f"mtllib {path.stem}.mtl")
        path.with_suffix(".mtl").write_text(f"newmtl {material}\nKd {rgb[0]} {rgb[1]} {rgb[2]}\n")
    lines.append(f"o {path.stem}")
    lines += ["v %r %r %r" % p for p in v]
    if material:
        lines.append(f"usemtl {material}")
    lines += ["f %d %d %d" % tuple(i + 1 for i in t) for t in f]
    path.write_text("\n".join(lines) + "\n")


def write_ply(path, mesh):
    v, f = mesh
    lines = ["ply", "format ascii 1.0", "comment vart test fixture, CC0",
             f"element vertex {len(v)}", "property float x", "property float y",
             "property float z", f"element face {len(f)}", "property list uchar int vertex_indices",
             "end_header"]
    lines += ["%r %r %r" % p for p in v]
    lines += ["3 %d %d %d" % t for t in f]
    path.write_text("\n".join(lines) + "\n")


# ---- arm6 -------------------------------------------------------------------------------------
ARM6 = """<?xml version="1.0"?>
<!-- arm6: a 6-DoF arm with a parallel gripper. Made for the vart tests; CC0 1.0. -->
<robot name="arm6">
  <material name="blue"><color rgba="0.1 0.3 0.8 1"/></material>
  <material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>
  <link name="base_link">
    <inertial><origin xyz="0 0 0.05"/><mass value="3.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.02"/></inertial>
    <visual name="base_shell"><geometry><mesh filename="meshes/base.stl"/></geometry>
      <material name="grey"/></visual>
    <visual name="base_ring"><origin xyz="0 0 0.11" rpy="0 0 0.3"/>
      <geometry><cylinder radius="0.07" length="0.02"/></geometry><material name="blue"/></visual>
    <collision><origin xyz="0 0 0.05"/><geometry><cylinder radius="0.09" length="0.1"/></geometry></collision>
  </link>
  <link name="shoulder_link">
    <inertial><mass value="1.5"/><inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.003"/></inertial>
    <visual><geometry><mesh filename="meshes/shoulder.stl"/></geometry><material name="blue"/></visual>
  </link>
  <link name="upper_arm">
    <inertial><origin xyz="0.15 0 0" rpy="0 1.5707963267948966 0"/><mass value="2.0"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.015" iyz="0" izz="0.015"/></inertial>
    <visual name="upper_arm_body"><origin xyz="0 0 0" rpy="0.1 0 0"/>
      <geometry><mesh filename="./meshes/upper_arm.obj"/></geometry></visual>
    <visual name="elbow_cap"><origin xyz="0.3 0 0"/><geometry><sphere radius="0.045"/></geometry>
      <material name="grey"/></visual>
    <visual name="shoulder_cap"><geometry><sphere radius="0.05"/></geometry><material name="grey"/></visual>
  </link>
  <link name="forearm">
    <inertial><origin xyz="0.12 0 0"/><mass value="1.2"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.006" iyz="0" izz="0.006"/></inertial>
    <visual><geometry><mesh filename="meshes/forearm.ply"/></geometry>
      <material name="orange"><color rgba="1.0 0.42 0.04 1"/></material></visual>
    <visual name="forearm_plate"><origin xyz="0.12 0 0.035" rpy="0 0 0.2"/>
      <geometry><box size="0.1 0.04 0.01"/></geometry><material name="grey"/></visual>
  </link>
  <link name="wrist_1_link">
    <visual><origin rpy="1.5707963267948966 0 0"/><geometry><cylinder radius="0.035" length="0.06"/></geometry>
      <material name="blue"/></visual>
  </link>
  <link name="wrist_2_link">
    <visual><origin xyz="0 0 0.02"/><geometry><box size="0.05 0.05 0.06"/></geometry>
      <material name="orange"/></visual>
  </link>
  <link name="wrist_3_link">
    <visual><geometry><cylinder radius="0.03" length="0.02"/></geometry>
      <material name="translucent"><color rgba="0.2 0.9 0.3 0.5"/></material></visual>
  </link>
  <link name="gripper_base">
    <inertial><mass value="0.4"/><inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial>
    <visual><origin xyz="0 0 0.02"/><geometry><box size="0.04 0.12 0.04"/></geometry><material name="grey"/></visual>
  </link>
  <link name="left_finger">
    <visual><geometry><mesh filename="meshes/finger.stl"/></geometry><material name="blue"/></visual>
  </link>
  <link name="right_finger">
    <visual><geometry><mesh filename="meshes/finger.stl" scale="1 -1 1"/></geometry><material name="blue"/></visual>
  </link>
  <link name="left_tip">
    <visual><origin xyz="0 0 0.01"/><geometry><box size="0.01 0.01 0.02"/></geometry></visual>
  </link>
  <link name="tool0"/>

  <joint name="shoulder_pan" type="revolute">
    <parent link="base_link"/><child link="shoulder_link"/>
    <origin xyz="0 0 0.12"/><axis xyz="0 0 1"/>
    <limit lower="-3.14159" upper="3.14159" effort="150" velocity="3.15"/>
    <dynamics damping="0.5" friction="0.1"/>
  </joint>
  <joint name="shoulder_lift" type="revolute">
    <parent link="shoulder_link"/><child link="upper_arm"/>
    <origin xyz="0 0.06 0.08" rpy="0 -0.4 0"/><axis xyz="0 1 0"/>
    <limit lower="-2.0" upper="2.0" effort="150" velocity="3.15"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="upper_arm"/><child link="forearm"/>
    <origin xyz="0.3 -0.02 0" rpy="0 0.8 0"/><axis xyz="0 1 0"/>
    <limit lower="-2.6" upper="2.6" effort="100" velocity="3.15"/>
  </joint>
  <joint name="wrist_1" type="revolute">
    <parent link="forearm"/><child link="wrist_1_link"/>
    <origin xyz="0.25 0 0" rpy="0 -0.4 0"/><axis xyz="0 1 0"/>
  </joint>
  <joint name="wrist_2" type="revolute">
    <parent link="wrist_1_link"/><child link="wrist_2_link"/>
    <origin xyz="0 0.04 0" rpy="0.3 0 0.2"/><axis xyz="0 0 -1"/>
    <limit lower="-1.5" upper="1.0" effort="30" velocity="3"/>
  </joint>
  <joint name="wrist_3" type="continuous">
    <parent link="wrist_2_link"/><child link="wrist_3_link"/>
    <origin xyz="0 0 0.06"/><axis xyz="0.6 0 0.8"/>
  </joint>
  <joint name="gripper_mount" type="fixed">
    <parent link="wrist_3_link"/><child link="gripper_base"/>
    <origin xyz="0 0 0.015" rpy="0 0 1.5707963267948966"/>
  </joint>
  <joint name="left_finger_joint" type="prismatic">
    <parent link="gripper_base"/><child link="left_finger"/>
    <origin xyz="0 0.01 0.04"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.1"/>
  </joint>
  <joint name="right_finger_joint" type="prismatic">
    <parent link="gripper_base"/><child link="right_finger"/>
    <origin xyz="0 -0.01 0.04"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.1"/>
    <mimic joint="left_finger_joint"/>
  </joint>
  <joint name="left_tip_joint" type="revolute">
    <parent link="left_finger"/><child link="left_tip"/>
    <origin xyz="0 0.005 0.05"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="left_finger_joint" multiplier="5.0" offset="0.05"/>
  </joint>
  <joint name="tool0_joint" type="fixed">
    <parent link="gripper_base"/><child link="tool0"/>
    <origin xyz="0 0 0.1"/>
  </joint>
</robot>
"""

ROVER = """<?xml version="1.0"?>
<!-- rover: a four-wheeled base with a pan-tilt camera mast, ROS package layout.
     Made for the vart tests; CC0 1.0. antenna.stl is missing on purpose, corrupt.stl
     is not an STL file and sonar.3ds is a format vart does not read. -->
<robot name="rover">
  <material name="black"><color rgba="0.05 0.05 0.05 1"/></material>
  <material name="yellow"><color rgba="0.9 0.8 0.1 1"/></material>
  <link name="base_footprint"/>
  <link name="base_link">
    <inertial><origin xyz="0 0 0.02"/><mass value="12"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.25"/></inertial>
    <visual name="chassis"><geometry><mesh filename="package://rover_description/meshes/chassis.stl" scale="0.001 0.001 0.001"/></geometry>
      <material name="yellow"/></visual>
    <visual name="bumper"><origin xyz="0.32 0 -0.02"/><geometry><box size="0.03 0.4 0.05"/></geometry>
      <material name="black"/></visual>
    <visual name="sonar"><origin xyz="0.34 0 0"/><geometry><mesh filename="package://rover_description/meshes/sonar.3ds"/></geometry></visual>
  </link>
  WHEELS
  <link name="mast">
    <visual><origin xyz="0 0 0.15"/><geometry><cylinder radius="0.02" length="0.3"/></geometry><material name="black"/></visual>
  </link>
  <link name="pan_link">
    <visual><geometry><mesh filename="package://rover_description/meshes/pan.ply"/></geometry><material name="black"/></visual>
  </link>
  <link name="camera_link">
    <visual name="camera_body"><geometry><box size="0.04 0.12 0.04"/></geometry><material name="yellow"/></visual>
    <visual name="antenna"><origin xyz="0 0.05 0.03"/><geometry><mesh filename="package://rover_description/meshes/antenna.stl"/></geometry></visual>
    <visual name="lens"><origin xyz="0.03 0 0" rpy="0 1.5707963267948966 0"/><geometry><mesh filename="package://rover_description/meshes/corrupt.stl"/></geometry></visual>
  </link>
  <joint name="base_joint" type="fixed">
    <parent link="base_footprint"/><child link="base_link"/><origin xyz="0 0 0.1"/>
  </joint>
  <joint name="mast_joint" type="fixed">
    <parent link="base_link"/><child link="mast"/><origin xyz="-0.2 0 0.05"/>
  </joint>
  <joint name="pan" type="revolute">
    <parent link="mast"/><child link="pan_link"/><origin xyz="0 0 0.3"/><axis xyz="0 0 1"/>
    <limit lower="-2.8" upper="2.8" effort="5" velocity="2"/>
  </joint>
  <joint name="tilt" type="revolute">
    <parent link="pan_link"/><child link="camera_link"/><origin xyz="0.02 0 0.04"/><axis xyz="0 1 0"/>
    <limit lower="-0.8" upper="1.2" effort="5" velocity="2"/>
  </joint>
</robot>
"""

WHEEL = """<link name="{n}_wheel">
    <visual><origin rpy="{rpy}"/><geometry><mesh filename="package://rover_description/meshes/wheel.obj"/></geometry>
      <material name="black"/></visual>
  </link>
  <joint name="{n}_wheel_joint" type="continuous">
    <parent link="base_link"/><child link="{n}_wheel"/>
    <origin xyz="{x} {y} -0.02"/><axis xyz="0 1 0"/>
  </joint>"""

GANTRY = """<?xml version="1.0"?>
<!-- gantry: a world-rooted test mechanism with every URDF joint type. vart tests; CC0 1.0. -->
<robot name="gantry">
  <link name="world"/>
  <link name="rail"><visual><geometry><box size="2 0.1 0.1"/></geometry></visual></link>
  <link name="carriage"><visual><geometry><box size="0.2 0.3 0.1"/></geometry></visual></link>
  <link name="table"><visual><origin xyz="0 0 -0.01"/><geometry><box size="0.3 0.3 0.02"/></geometry></visual></link>
  <link name="puck"><visual><geometry><cylinder radius="0.05" length="0.02"/></geometry></visual></link>
  <link name="drone"><visual><geometry><sphere radius="0.08"/></geometry></visual></link>
  <link name="probe"><visual><origin xyz="0 0 -0.05"/><geometry><cylinder radius="0.005" length="0.1"/></geometry></visual></link>
  <joint name="rail_mount" type="fixed"><parent link="world"/><child link="rail"/>
    <origin xyz="0.5 -0.2 1.0" rpy="0 0 0.3"/></joint>
  <joint name="x_axis" type="prismatic"><parent link="rail"/><child link="carriage"/>
    <origin xyz="0 0 0.1"/><axis xyz="1 0 0"/><limit lower="-0.9" upper="0.9" effort="100" velocity="1"/></joint>
  <joint name="z_axis" type="prismatic"><parent link="carriage"/><child link="table"/>
    <origin xyz="0 0 -0.2" rpy="3.141592653589793 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-0.3" upper="0.5" effort="100" velocity="1"/></joint>
  <joint name="slide" type="planar"><parent link="table"/><child link="puck"/>
    <origin xyz="0 0 0.02" rpy="0.2 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="fly" type="floating"><parent link="world"/><child link="drone"/>
    <origin xyz="0 0 2"/></joint>
  <joint name="probe_joint" type="continuous"><parent link="drone"/><child link="probe"/>
    <origin xyz="0.1 0 -0.05" rpy="0 0.5 0"/><axis xyz="0 -1 1"/></joint>
</robot>
"""

BAD = {
    "malformed.urdf": """<?xml version="1.0"?>
<robot name="malformed">
  <link name="a"/>
  <link name="b">
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>
</robot>
""",
    "unknown_type.urdf": """<?xml version="1.0"?>
<robot name="unknown_type">
  <link name="a"><visual><geometry><box size="1 1 1"/></geometry></visual></link>
  <link name="b"/>
  <joint name="knee" type="hinge"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>
</robot>
""",
    "cycle.urdf": """<?xml version="1.0"?>
<robot name="cycle">
  <link name="root"><visual><geometry><box size="1 1 1"/></geometry></visual></link>
  <link name="a"/>
  <link name="b"/>
  <link name="c"/>
  <link name="d"/>
  <joint name="j_root" type="fixed"><parent link="root"/><child link="a"/></joint>
  <joint name="j_bc" type="revolute"><parent link="b"/><child link="c"/><limit lower="-1" upper="1"/></joint>
  <joint name="j_cd" type="revolute"><parent link="c"/><child link="d"/><limit lower="-1" upper="1"/></joint>
  <joint name="j_db" type="revolute"><parent link="d"/><child link="b"/><limit lower="-1" upper="1"/></joint>
</robot>
""",
    "missing_link.urdf": """<?xml version="1.0"?>
<robot name="missing_link">
  <link name="a"><visual><geometry><mesh filename="meshes/nowhere.stl"/></geometry></visual></link>
  <joint name="j" type="fixed"><parent link="a"/><child link="ghost"/></joint>
</robot>
""",
    "bad_number.urdf": """<?xml version="1.0"?>
<robot name="bad_number">
  <link name="a"/>
  <link name="b"/>
  <joint name="j" type="prismatic"><parent link="a"/><child link="b"/>
    <origin xyz="0 0 1..5"/><limit lower="0" upper="1"/></joint>
</robot>
""",
}


def main():
    arm = HERE / "arm6"
    (arm / "meshes").mkdir(parents=True, exist_ok=True)
    (arm / "arm6.urdf").write_text(ARM6)
    write_stl(arm / "meshes" / "base.stl", merge(cylinder(0.09, 0.1, 12, (0, 0, 0.05)),
                                                   box((0.05, 0.02, 0.03), (0.1, 0, 0.015))))
    write_stl(arm / "meshes" / "shoulder.stl",
              merge(cylinder(0.06, 0.1, 10, (0, 0, 0.03)), box((0.04, 0.1, 0.04), (0, 0.05, 0.08))),
              binary=False)
    write_obj(arm / "meshes" / "upper_arm.obj",
              merge(box((0.3, 0.06, 0.05), (0.15, 0, 0)), box((0.02, 0.02, 0.08), (0.05, 0, 0.05))),
              material="arm_paint", rgb=(0.9, 0.9, 0.95))
    write_ply(arm / "meshes" / "forearm.ply", merge(cylinder(0.03, 0.25, 8, (0.125, 0, 0), axis="x"),
                                                      box((0.03, 0.03, 0.03), (0.2, 0, 0.04))))
    write_stl(arm / "meshes" / "finger.stl", merge(box((0.015, 0.01, 0.06), (0, 0.005, 0.03)),
                                                     box((0.01, 0.015, 0.01), (0, 0.01, 0.055))))

    pkg = HERE / "rover" / "rover_description"
    (pkg / "urdf").mkdir(parents=True, exist_ok=True)
    (pkg / "meshes").mkdir(parents=True, exist_ok=True)
    (pkg / "package.xml").write_text('<?xml version="1.0"?>\n<package format="3"><name>rover_description'
                                     '</name><version>0.0.1</version><description>vart test fixture'
                                     '</description><maintainer email="n@example.com">vart</maintainer>'
                                     '<license>CC0-1.0</license></package>\n')
    wheels = "\n  ".join(WHEEL.format(n=n, x=x, y=y, rpy=rpy) for n, x, y, rpy in (
        ("front_left", 0.2, 0.25, "0 0 0"), ("front_right", 0.2, -0.25, "0 0 3.141592653589793"),
        ("rear_left", -0.2, 0.25, "0 0 0"), ("rear_right", -0.2, -0.25, "0 0 3.141592653589793")))
    (pkg / "urdf" / "rover.urdf").write_text(ROVER.replace("WHEELS", wheels))
    write_stl(pkg / "meshes" / "chassis.stl",  # millimetres
              merge(box((600, 400, 120), (0, 0, 20)), box((100, 80, 60), (200, 0, 110))))
    write_obj(pkg / "meshes" / "wheel.obj",
              merge(cylinder(0.08, 0.05, 12, (0, 0.03, 0), axis="y"), box((0.02, 0.01, 0.02), (0.05, 0.06, 0))))
    write_ply(pkg / "meshes" / "pan.ply", merge(box((0.06, 0.06, 0.03), (0, 0, 0.015)),
                                                box((0.02, 0.02, 0.02), (0.03, 0, 0.03))))
    (pkg / "meshes" / "corrupt.stl").write_bytes(b"this is not an STL file\n")
    (pkg / "meshes" / "sonar.3ds").write_bytes(b"MM\x00\x00")
    (HERE / "gantry.urdf").write_text(GANTRY)
    bad = HERE / "bad"
    bad.mkdir(exist_ok=True)
    for name, text in BAD.items():
        (bad / name).write_text(text)


if __name__ == "__main__":
    main()
