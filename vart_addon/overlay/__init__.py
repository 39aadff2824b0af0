"""The viewport overlay: :mod:`.drawing` (all GPU drawing, one draw handler) and
:mod:`.geometry` (the shapes it draws, numpy only)."""
