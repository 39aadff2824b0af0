"""How close two solves of one problem must agree: tolerances that follow from what the solver
guarantees (:class:`vart_addon.solver.Settings`), never from what one machine happened to give.

- A **converged** solve meets every goal to ``tol`` (the norm of each level's error rows, m and
  rad mixed). Two converged solves of a well-posed problem (a unique solution, Jacobian rank
  full) therefore agree to ``tol / sigma_min`` in their joint values; where the solution is
  unique up to the goals, compare goal errors against ``tol`` instead.
- A **stalled** solve at a potential's minimum (gravity and springs, the potential level)
  stops when an iteration lowers the energy by less than ``stall_tol`` (J). Near the minimum
  the energy is ``E* + 1/2 dq^T K dq``: a point that far still offers a full Newton step
  gaining ``1/2 dq^T K dq``, so the stall rule leaves the point within the energy norm
  ``|dq|_K <= sqrt(2 stall_tol)`` of the minimum. Per spring of stiffness ``k`` (N m / rad or
  N / m) that is ``|dq| <= sqrt(2 stall_tol / k)`` and, for its torque ``k dq``,
  ``sqrt(2 stall_tol k)``. Two stalled solves (another joint order, another iteration budget)
  each lie within that of the minimum, hence within twice that of each other.

OpenBLAS, MKL and Apple's Accelerate round the last bits of a product by CPU, thread count and
memory alignment, so nothing tighter than these can be promised across machines.
"""
from __future__ import annotations

import math


def stalled_spring_q(stall_tol: float, stiffness: float) -> float:
    """How far (rad or m) two stalled solves may leave a spring of ``stiffness`` apart."""
    return 2.0 * math.sqrt(2.0 * stall_tol / stiffness)


def stalled_spring_torque(stall_tol: float, stiffness: float) -> float:
    """How far (N m or N) two stalled solves may leave a spring's force apart."""
    return stiffness * stalled_spring_q(stall_tol, stiffness)
