"""The deck shuffled as `rng.shuffle` shuffles it, in fewer steps.

random.Random.shuffle calls `_randbelow` (a Python method) once a card; for the generators
whose `_randbelow` is getrandbits' (Random, SystemRandom: the server's, the tests' and the
benches') the same draws are made here in one loop, so a seed deals the same cards as
before. Any other generator shuffles with its own method.
"""

import random

_BITS = tuple(n.bit_length() for n in range(128))  # _randbelow(n) draws this many bits


def shuffle(cards: list, rng) -> None:
    """Shuffle `cards` in place, drawing from `rng` exactly as rng.shuffle(cards) would."""
    kind = type(rng)
    if (kind.shuffle is not random.Random.shuffle or len(cards) > len(_BITS)
            or kind._randbelow is not random.Random._randbelow_with_getrandbits):
        rng.shuffle(cards)
        return
    bits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1  # random.Random._randbelow_with_getrandbits(n), inlined
        j = bits(_BITS[n])
        while j >= n:
            j = bits(_BITS[n])
        cards[i], cards[j] = cards[j], cards[i]
