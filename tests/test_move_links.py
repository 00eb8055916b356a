"""A turn mail's move links (Signer.move_links) read back as their move, for every legal
action of every preset, each with its own id and signed by the newest key."""

import random

import pytest

from pbem.engine import PRESETS, legal, new_game, preset
from pbem.signing import Signer
from tests.helpers import random_step

KEYS = ["old-key", "new-key"]


def legal_actions(name: str, moves: int = 120) -> list[dict]:
    rng, out = random.Random(name), []
    st = new_game(preset(name), first_dealer=0)
    for _ in range(moves):
        if st.phase == "over":
            break
        for seat in st.to_act():
            out += legal(st, seat)
        random_step(st, rng)
    return out


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_move_link_reads_back_as_its_move(name):
    sign = Signer(KEYS).move_links(7, 2, 41)
    actions = legal_actions(name)
    assert actions
    for a in actions:
        got = Signer(KEYS).loads(sign(a))
        assert got == {"g": 7, "s": 2, "a": a, "q": 41, "n": got["n"]}


def test_move_links_have_their_own_ids_and_the_newest_key():
    sign = Signer(KEYS).move_links(1, 0, 3)
    a, b = sign({"type": "bid", "bid": 4}), sign({"type": "bid", "bid": 4})
    assert a != b
    assert Signer(KEYS[-1:]).loads(a)["a"] == {"type": "bid", "bid": 4}
    with pytest.raises(ValueError):
        Signer(KEYS[:1]).loads(a)
