"""The abstracted tower (``Add Example > Tower (abstracted)``) in real bpy: 30 blocks of 3 cells,
each a driven sublinkage following its two abstract joints (a virtual revolute bend, tree, in
the top; a virtual prismatic stretch closing on the block's top rung). After a bake of its
keys, at every frame, each block's top rung is where its abstract joints put it: the bottom
rung's baked pose composed with the bend at its keyed value and the stretch (keyed, or 0 for a
block none of whose abstract joints is keyed), through the joints' stored frames."""
import math

import bpy
import numpy as np
import pytest

from vart_addon import examples as X
from vart_addon.bridge import SceneBridge
from vart_addon.bridge import schema as S
from vart_addon.bridge import sublinkages as SL
from vart_addon.examples import tower_abstract as TA
from vart_addon.solver import se3
from vart_addon.solver.sublinkages import solve_order

N = X.MECHANISM_FRAMES
BLOCKS = 30
TOL = 1e-5  # m and rad: baked values are single precision F-curve keys


def Rz(a):
    c, s = math.cos(a), math.sin(a)
    return se3.make_pose(np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]), np.zeros(3))


def Tz(d):
    return se3.make_pose(np.eye(3), np.array([0.0, 0.0, d]))


def keyed(value, frame):
    """A key from 0 at frame 1 to ``value`` at frame N, linear."""
    return value * (frame - 1) / (N - 1)


@pytest.fixture
def tower(vart_registered):
    assert bpy.ops.vart.add_example(example="tower_abstract") == {'FINISHED'}
    # these tests are about the bake's motion: Will It Run? after it (the tower's 96 frames:
    # 8 s more) is tested in tests/blender/checks
    bpy.context.scene.vart.check_after_bake = False
    return bpy.context.scene


def test_each_block_is_a_driven_sublinkage_under_its_abstract_joints(tower):
    br = SceneBridge(tower)
    br.sync()
    lk = br.linkage
    assert len(lk.links) == 271 + BLOCKS
    hier = SL.read_hierarchy(tower, [ob for ob in tower.objects if S.is_link(ob)])
    assert [(s.name, s.parent, s.disposition) for s in hier.sublinkages] == \
        [(f"block{b}", None, "driven") for b in range(BLOCKS)]
    for b in range(BLOCKS):
        cells = range(3 * b + 1, 3 * b + 4)
        assert sorted(n for n, h in hier.homes if h == f"block{b}") == \
            sorted(f"{p}{i}" for i in cells for p in ("left", "right", "rung"))
        bend, stretch = lk.joints[f"block{b}_bend"], lk.joints[f"block{b}_stretch"]
        assert (bend.jtype.name, bend.is_tree, bend.virtual) == ("revolute", True, True)
        assert (bend.parent, bend.child) == (f"rung{3 * b}", f"block{b}_axis")
        assert (stretch.jtype.name, stretch.is_tree, stretch.virtual) == \
            ("prismatic", False, True)
        assert (stretch.parent, stretch.child) == (f"block{b}_axis", f"rung{3 * b + 3}")
        assert np.abs(stretch.jtype.residual(lk.relative_pose(stretch))).max() < 1e-12
        assert hier.home(f"block{b}_axis") is None  # the abstract joints are in the top
    order = solve_order(lk)
    assert order[0] == (None,) and sorted(order[1:]) == sorted((f"block{b}",)
                                                               for b in range(BLOCKS))


def test_the_blocks_follow_their_abstract_joints_over_the_bake(tower):
    assert bpy.ops.vart.bake() == {'FINISHED'}
    assert "unmet" not in tower.vart.status_summary, tower.vart.status_summary
    check = X.check_baked(tower, 1, N)
    assert check.closures == 90 + BLOCKS and check.closure_error <= 1e-6, check
    js = S.read_scene(ob for ob in tower.objects if S.is_link(ob)).joints
    frames = {}
    for b in range(BLOCKS):
        for kind in ("bend", "stretch"):
            j = js[f"block{b}_{kind}"]
            frames[b, kind] = (np.asarray(j.T_parent_mob, float).reshape(4, 4),
                               np.asarray(j.T_child_frame, float).reshape(4, 4))
    bends = dict(TA.BENDS)
    stretched, length = TA.STRETCH
    free = set(bends)  # a bent block's stretch has no target: its length is the solve's
    for f in range(1, N + 1):
        tower.frame_set(f)

        def pose(name):
            return X.pose(bpy.data.objects[name])
        for b in range(BLOCKS):
            bottom, axis, top = (pose(f"rung{3 * b}"), pose(f"block{b}_axis"),
                                 pose(f"rung{3 * b + 3}"))
            (mob_b, fr_b), (mob_s, fr_s) = frames[b, "bend"], frames[b, "stretch"]
            theta = keyed(bends.get(b, 0.0), f)
            # the stretch as baked: the top rung's frame seen from the axis's, along z
            s = float((se3.inverse(axis @ mob_s) @ top @ fr_s)[2, 3])
            if b not in free:
                assert s == pytest.approx(keyed(length if b == stretched else 0.0, f),
                                          abs=TOL), (b, f)
            predicted = bottom @ mob_b @ Rz(theta) @ se3.inverse(fr_b) @ mob_s @ Tz(s) @ \
                se3.inverse(fr_s)
            assert np.abs(predicted - top).max() < TOL, (b, f)
    # the tower bent over: its top rung turned by the sum of the bends (about the plane's
    # normal), and the stretched block is shorter by its key
    tower.frame_set(1)
    top0 = X.pose(bpy.data.objects["rung90"])
    tower.frame_set(N)
    top1 = X.pose(bpy.data.objects["rung90"])
    R = top0[:3, :3].T @ top1[:3, :3]
    assert abs(R[1, 1] - 1.0) < TOL  # a turn about y only
    assert math.atan2(R[0, 2], R[0, 0]) == pytest.approx(-sum(bends.values()), abs=TOL)


def test_operating_a_bend_turns_its_block_and_no_other(tower):
    """Operate Joint on one abstract joint (a drag by it): its block turns its top rung by the
    angle, the other blocks keep their shapes (each top rung as seen from its bottom rung)."""
    def shapes():
        return [se3.inverse(X.pose(bpy.data.objects[f"rung{3 * b}"]))
                @ X.pose(bpy.data.objects[f"rung{3 * b + 3}"]) for b in range(BLOCKS)]
    before = shapes()
    tower.vart.active_joint = "block10_bend"
    assert bpy.ops.vart.operate_joint(value=[10.0, 0.0, 0.0, 0.0, 0.0, 0.0]) == {'FINISHED'}
    assert "Converged" in tower.vart.status_summary, tower.vart.status_summary
    after = shapes()
    for b in range(BLOCKS):
        R = before[b][:3, :3].T @ after[b][:3, :3]
        turned = math.atan2(R[0, 2], R[0, 0])  # about world y; the bend's axis is -y
        assert turned == pytest.approx(-math.radians(10) if b == 10 else 0.0, abs=1e-6), b
        if b != 10:
            assert np.abs(after[b] - before[b]).max() < 1e-6, b
