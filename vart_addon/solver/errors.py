"""Exceptions raised by the solver package. All derive from ValueError so callers may catch either."""


class VartError(ValueError):
    """Bad input to the kinematics API: the message names the link, joint or value at fault.

    Whenever this is raised by a mutation, the linkage is left exactly as it was.
    """
