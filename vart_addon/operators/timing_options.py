"""The Timing options Export Trajectory and Replay in MuJoCo share: how a motion is re-timed
within its joints' limits before it goes out (the scene's frame times, uniformly to the
limits, or time-optimal by TOPP-RA) and the default limits of joints without their own, so
that a replay with the same options plays the motion such an export sends
(:func:`vart_addon.io_trajectory.export_timing`)."""
from bpy.props import EnumProperty, FloatProperty

from ..formats.trajectory.timing import Limits
from ..properties import RETIME_ITEMS


class TimingOptions:
    """An operator mixin: ``retime`` and the default limits, read by :meth:`retime_method`
    and :meth:`limits`."""

    retime: EnumProperty(name="Timing", default='NONE', items=RETIME_ITEMS,
                         description="Re-time the motion within the joints' limits (URDF "
                         "velocity limits, or the defaults below)")
    velocity_limit: FloatProperty(name="Default Velocity", subtype='ANGLE', default=0.0,
                                  min=0.0, description="Velocity limit (per second) of angular "
                                  "joints without a URDF limit (0: none)")
    linear_velocity_limit: FloatProperty(name="Default Linear Velocity", default=0.0,
                                         min=0.0, description="Velocity limit (m/s) of linear "
                                         "joints without a URDF limit (0: none)")
    acceleration_limit: FloatProperty(name="Acceleration", subtype='ANGLE', default=0.0,
                                      min=0.0, description="Acceleration limit (per second "
                                      "squared) of angular joints (0: none)")
    linear_acceleration_limit: FloatProperty(name="Linear Acceleration", default=0.0, min=0.0,
                                             description="Acceleration limit (m/s^2) of "
                                             "linear joints (0: none)")

    def retime_method(self) -> str | None:
        """None (the scene's timing), ``"uniform"`` or ``"toppra"``."""
        return None if self.retime == 'NONE' else self.retime.lower()

    def limits(self) -> Limits:
        """The defaults as :class:`~vart_addon.formats.trajectory.timing.Limits` (0: none)."""
        return Limits(self.velocity_limit or None, self.linear_velocity_limit or None,
                      self.acceleration_limit or None, self.linear_acceleration_limit or None)
