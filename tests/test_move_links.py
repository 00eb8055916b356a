"""A turn mail's move links are signed by Signer.move_links, which encodes the JSON around
the action once a mail: each link must be the very token dumps (and so itsdangerous) makes
of the same data, for every legal action of every preset, and still verify."""

import random
import time

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from pbem import signing
from pbem.engine import PRESETS, legal, new_game, preset
from pbem.signing import MOVE, Signer
from tests.helpers import random_step

KEYS = ["old-key", "new-key"]


@pytest.fixture
def frozen(monkeypatch):
    """One link id and one second, so two ways of signing can be compared."""
    monkeypatch.setattr(signing._secrets, "token_hex", lambda n: "0123456789ab")
    now = time.time()
    monkeypatch.setattr(signing.time, "time", lambda: now)


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
def test_a_move_link_is_the_token_dumps_makes(frozen, name):
    sign = Signer(KEYS).move_links(7, 2, 41)
    actions = legal_actions(name)
    assert actions
    for a in actions:
        data = {"g": 7, "s": 2, "a": a, "q": 41}
        token = sign(a)
        assert token == Signer(KEYS).dumps(data)
        assert Signer(KEYS).loads(token) == dict(data, n="0123456789ab")


json_scalars = hs.none() | hs.booleans() | hs.integers() | hs.text()
actions = hs.dictionaries(hs.text(), hs.recursive(
    json_scalars, lambda inner: hs.lists(inner) | hs.dictionaries(hs.text(), inner),
    max_leaves=8))


@given(game=hs.integers(0, 10**9), seat=hs.integers(0, 7), seq=hs.integers(0, 10**6),
       action=actions)
def test_any_action_signs_as_dumps_does(game, seat, seq, action):
    # a long action is compressed by both the same way
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(signing._secrets, "token_hex", lambda n: "0123456789ab")
        mp.setattr(signing.time, "time", lambda: 1_790_000_000.5)
        token = Signer(KEYS, MOVE).move_links(game, seat, seq)(action)
        assert token == Signer(KEYS, MOVE).dumps({"g": game, "s": seat, "a": action, "q": seq})


def test_move_links_have_their_own_ids_and_the_newest_key():
    sign = Signer(KEYS).move_links(1, 0, 3)
    a, b = sign({"type": "bid", "bid": 4}), sign({"type": "bid", "bid": 4})
    assert a != b
    assert Signer(KEYS[-1:]).loads(a)["a"] == {"type": "bid", "bid": 4}
    with pytest.raises(ValueError):
        Signer(KEYS[:1]).loads(a)
