"""Keep Python's cyclic garbage collector off the objects that live as long as the server.

A full collection (generation 2) walks every object the process tracks, and most of
them are the imported modules' (Streamlit, plotly, pandas, NumPy and the app: well over
100 000 objects), which never become garbage. On a class redrawing for its teacher
that walk is a long pause every few dozen page runs, paid by whichever student's run
triggers it (benchmarks/class_session.py measures a class's runs).

:func:`freeze_new_imports`, called after each run (``app.py``), moves every object then
alive into the interpreter's permanent generation (:func:`gc.freeze`) whenever modules were
imported since it last did: a few times per process, as each kind of page is first opened.
Frozen objects are still freed by reference counting when nothing refers to them; only a
reference cycle among them would never be collected, so it collects the garbage first.
What is alive at those few moments and later becomes cyclic garbage (a cached figure
evicted afterwards, an early session's state) stays: a bounded, one-off amount, against
a collector pass that no longer walks the modules on every full collection.
"""

from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_modules_frozen = 0  #: len(sys.modules) when it last froze


def freeze_new_imports() -> bool:
    """Collect, then freeze every live object, if modules were imported since the last time.

    Returns whether it froze. Process-wide; safe from any thread. Costs one full
    collection when it freezes, nothing otherwise.
    """
    global _modules_frozen
    if len(sys.modules) == _modules_frozen:
        return False
    with _lock:
        imported = len(sys.modules)
        if imported == _modules_frozen:
            return False
        gc.collect()
        gc.freeze()
        _modules_frozen = imported
    return True
