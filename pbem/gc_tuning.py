"""The garbage collector's pace for the long-running processes (serve, smtp, clock, the
mail workers, a WSGI worker).

CPython collects its youngest objects after every 700 allocations more than deallocations,
a pace set for small scripts. A move, a mail or a due timeout allocates some thousands of
short-lived objects (states, rows, rendered mails), so each paid for several young
collections and, every hundred or so, a full one over every object the process holds:
about 0.4 ms of a due timeout's ~4.5 ms of CPU on PostgreSQL (bench/clock.py). Cycles are
still collected, only less often: memory held by garbage is bounded by YOUNG objects.
"""

import gc

YOUNG = 10_000  # allocations between young collections (CPython's default: 700)


def for_long_running() -> None:
    """Collect less often, and never look again at what startup loaded (modules, templates,
    settings: gc.freeze keeps them out of every later collection)."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG), middle, old)
