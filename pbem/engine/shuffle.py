"""The deck shuffled as `rng.shuffle` shuffles it, in fewer steps.

random.Random.shuffle calls `_randbelow` (a Python method) once a card; for the generators
whose `_randbelow` is getrandbits' (Random, SystemRandom: the server's, the tests' and the
benches') the same draws are made here in one loop, so a seed deals the same cards as
before. Any other generator shuffles with its own method.
"""

import random

# for a deck of n cards, each step of the shuffle: (i, bits): draw `bits` bits until the
# number is at most i (_randbelow(i + 1)), then swap that card with card i
_STEPS = {n: tuple((i, (i + 1).bit_length()) for i in range(n - 1, 0, -1)) for n in range(128)}


def shuffle(cards: list, rng) -> None:
    """Shuffle `cards` in place, drawing from `rng` exactly as rng.shuffle(cards) would."""
    kind = type(rng)
    if (kind.shuffle is not random.Random.shuffle or len(cards) not in _STEPS
            or kind._randbelow is not random.Random._randbelow_with_getrandbits):
        rng.shuffle(cards)
        return
    bits = rng.getrandbits
    for i, k in _STEPS[len(cards)]:  # random.Random._randbelow_with_getrandbits, inlined
        j = bits(k)
        while j > i:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]
