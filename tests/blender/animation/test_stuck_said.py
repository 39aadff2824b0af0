"""A goal no joint can move (``SolveStatus.stuck``) is said by name: in the status line of a
solve (``properties.summary``) and in the bake's summary, with how many more there are."""
from vart_addon import properties as P
from vart_addon.animation.bake_result import BakeResult
from vart_addon.solver import SolveStatus

GOALS = ["look_at of root joint of link 'head'", "target of joint 'strut'",
         "balance of root joint of link 'base'", "lock of joint 'bolt'"]


def test_the_status_line_names_the_stuck_goals():
    line = P.summary(SolveStatus(iterations=2, ms=1.0, stuck=GOALS[:1]))
    assert line == "No joint can move look_at of root joint of link 'head' (2 iterations, 1.0 ms)"
    line = P.summary(SolveStatus(stuck=GOALS))
    assert line.startswith(f"No joint can move {', '.join(GOALS[:3])} and 1 more (")


def test_the_bake_summary_names_the_stuck_goals_once():
    res = BakeResult(frame_start=1, frame_end=3, stuck={1: GOALS[:2], 2: GOALS[:2], 3: GOALS[1:2]})
    assert res.goals_stuck() == sorted(GOALS[:2])
    assert res.summary().endswith(f"; no joint can move {', '.join(sorted(GOALS[:2]))}")
    assert res.level_status().stuck == sorted(GOALS[:2])
    assert "no joint can move" not in BakeResult(frame_start=1, frame_end=3).summary()
