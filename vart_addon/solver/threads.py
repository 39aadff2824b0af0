"""One BLAS thread while vart solves (issue 35): a scoped limit, restored afterwards.

numpy's BLAS (OpenBLAS in every numpy Blender bundles: 1.26 and 2.3) starts a thread pool as
large as the machine. A solve is hundreds of BLAS calls on small arrays; when the cores are
busy (Blender's own threads, a render, a Dask worker's other tasks), every call that wakes
the pool waits for a core, and one iteration of a 2- to 8-link mechanism took 100-260 ms wall
instead of 1.5-13 ms, so a 5 ms budget ran over by 10-50 times. While :func:`one_blas_thread`
is active, every BLAS library loaded in the process runs on one thread; when the last vart
scope in the process ends, each library gets back the thread count it had before, so other
add-ons (and the user's own numpy work) are untouched between solves.

The count is process-wide (OpenBLAS has one pool per process), so the scope is too: it is
counted, and only the first scope to open (in any thread) sets the limit and only the last
to close restores it. Entering and leaving costs about 1.4 microseconds (three calls into the
library and a lock; measured on this project's 2-core machine), about a thousandth of a ~1 ms
drag solve, so :class:`.Solver` opens it around every solve: the Blender operators, bakes,
live mode, studies in Blender, the command line, the local process pool and Dask workers all
solve inside it.

The libraries are found by `threadpoolctl <https://github.com/joblib/threadpoolctl>`_ (pure
Python, BSD-3-Clause; shipped as a wheel with the extension and sent to Dask workers with
vart's core), once per process, on first use. Without it (a Python where it is not
installed) the scope does nothing and :func:`available` is False.
"""
from __future__ import annotations

import ctypes
import itertools
import threading

_lock = threading.Lock()
_depth = 0  # open scopes in this process (any thread)
_saved: list = []  # (set function, the library's thread count before the outermost scope)
_libraries: list | None = None  # (get, set) of each BLAS library, found on first use


def _functions(lc) -> tuple:
    """``(get, set)`` of the thread count of the library a threadpoolctl controller found.
    OpenBLAS's own C functions are called directly (0.4 microseconds for both instead of 1.8
    through the controller, whose policy for several Python threads the counted scope makes
    moot; the symbols as threadpoolctl looks them up: numpy 1.26's ``openblas_..._64_``,
    numpy 2's ``scipy_openblas_..._64_``); other libraries through the controller."""
    if lc.internal_api == "openblas":
        lib = ctypes.CDLL(lc.filepath)  # already loaded: the same handle
        for pre, suf in itertools.product(("", "scipy_"), ("", "64_", "_64")):
            get = getattr(lib, f"{pre}openblas_get_num_threads{suf}", None)
            put = getattr(lib, f"{pre}openblas_set_num_threads{suf}", None)
            if get is not None and put is not None:
                return get, put
    return lc.get_num_threads, lc.set_num_threads


def _blas_libraries() -> list:
    """``(get, set)`` of each BLAS library loaded in this process (found once; numpy's is
    loaded before any solve); [] without threadpoolctl."""
    global _libraries
    if _libraries is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _libraries = []
        else:
            found = ThreadpoolController().select(user_api="blas").lib_controllers
            _libraries = [_functions(lc) for lc in found]
    return _libraries


def available() -> bool:
    """Whether the BLAS thread count can be limited here (threadpoolctl importable and a BLAS
    library with a thread-count API loaded: OpenBLAS, MKL, BLIS or FlexiBLAS)."""
    return bool(_blas_libraries())


def blas_threads() -> list[int]:
    """The thread count of each BLAS library found, as it is now."""
    return [int(get()) for get, _ in _blas_libraries()]


class _OneThread:
    """The scope (a class, not a generator: half the cost)."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _depth
        with _lock:
            if _depth == 0:
                for get, put in _blas_libraries():
                    n = get()
                    if n is not None and n != 1:
                        _saved.append((put, n))
                        put(1)
            _depth += 1

    def __exit__(self, *exc) -> None:
        global _depth
        with _lock:
            _depth -= 1
            if _depth == 0:
                for put, n in _saved:
                    put(n)
                _saved.clear()


_SCOPE = _OneThread()


def one_blas_thread() -> _OneThread:
    """A context manager: the body runs with every BLAS library at one thread; each library's
    count is restored when the last open scope of the process closes (also on an exception).
    Scopes nest and may be open in several threads at once."""
    return _SCOPE
