"""A seed deals the same cards as it always did (issue 30: the deck is shuffled by the public
`rng.shuffle`, no longer by CPython's `_randbelow` inlined). tests/data/deals_v1.json was made
by the code before that change: three deals in a row from each of seeds 0-2 in full, and a
SHA-256 of those of seeds 0-299, for every preset."""

import hashlib
import json
import random
from pathlib import Path

import pytest

from pbem.engine import PRESETS, make_deal, new_game, preset

STORED = json.loads((Path(__file__).parent / "data" / "deals_v1.json").read_text())


def deals(name: str, seed: int, count: int = 3) -> list[dict]:
    """`count` deals in a row from one generator, as the stored file was made."""
    rng, st = random.Random(seed), new_game(preset(name), first_dealer=0)
    return [make_deal(st, rng) for _ in range(count)]


def test_every_preset_is_stored():
    assert sorted(STORED["deals"]) == sorted(PRESETS) == sorted(STORED["sha256_seeds_0_299"])


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_seed_deals_the_stored_cards(name):
    for seed, stored in STORED["deals"][name].items():
        assert deals(name, int(seed)) == stored


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_three_hundred_seeds_deal_as_stored(name):
    digest = hashlib.sha256()
    for seed in range(300):
        digest.update(json.dumps(deals(name, seed), sort_keys=True).encode())
    assert digest.hexdigest() == STORED["sha256_seeds_0_299"][name]


def test_the_server_s_generator_deals_every_card_once():
    st = new_game(preset("standard"), first_dealer=0)
    ev = make_deal(st, random.SystemRandom())
    assert sorted(c for hand in ev["hands"] for c in hand) == sorted(st.table.deck)
