"""Let a long-running process reuse the memory of the arrays it frees.

A multi-head trace at T = 256 with 8 heads keeps four ``(8, 256, 256)`` float32
arrays (scores, scaled, masked, weights: 2 MB each). With glibc's defaults,
memory that large comes fresh from the kernel on every call (``mmap``, or the
heap top trimmed back after each free), and touching fresh pages — one page
fault per 4 kB — can cost as much as the arithmetic (benchmarks/core_vs_torch.py
runs with this setting, as the server does). PyTorch sidesteps the same cost with
its own caching allocator.

:func:`keep_freed_memory` raises glibc's two thresholds so that blocks up to
``MMAP_THRESHOLD`` come from the heap and up to ``TRIM_THRESHOLD`` of free
memory stays with the process for the next call. The app calls it once at
start (``app.py``); ``import attention_core`` never does, and on
systems without glibc it does nothing.

Kept memory is per malloc *arena*, and glibc gives each thread that allocates
at the same time as others an arena of its own, up to eight per core. A
Streamlit server runs every session in its own thread: 16 sessions waiting for
trainings at once each get an arena, and each arena keeps what its training
freed, which adds up past a small server's memory (benchmarks/class_mix.py
measures a class's peak). So the same call caps the
arenas at :data:`MALLOC_ARENAS`, one per core of the hosts we run on: threads
share them, and the memory kept is bounded by two arenas' worth.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

#: Blocks up to this size come from the heap instead of a fresh mapping.
MMAP_THRESHOLD = 32 * 1024 * 1024
#: Free memory kept at the top of each malloc arena before it is given back.
TRIM_THRESHOLD = 32 * 1024 * 1024
#: Malloc arenas shared by all threads (glibc's default: up to 8 per core).
MALLOC_ARENAS = 2
_M_TRIM_THRESHOLD = -1  # mallopt parameter numbers, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


@functools.cache
def keep_freed_memory() -> bool:
    """Ask glibc's malloc to reuse freed blocks up to 32 MB, in two arenas; True when it agreed.

    Process-wide and idempotent; only the first call asks glibc. Retained memory is bounded by
    ``TRIM_THRESHOLD`` per malloc arena, and there are at most :data:`MALLOC_ARENAS`.
    """
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False  # not glibc (macOS, Windows, musl without mallopt)
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return all(
        mallopt(parameter, value)
        for parameter, value in (
            (_M_ARENA_MAX, MALLOC_ARENAS),
            (_M_MMAP_THRESHOLD, MMAP_THRESHOLD),
            (_M_TRIM_THRESHOLD, TRIM_THRESHOLD),
        )
    )
