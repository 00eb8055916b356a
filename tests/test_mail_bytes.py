"""A move's mails keep their bytes while their rendering gets cheaper (issue 15): the turn
mails, news, game-over mails and answers of seeded random games over many presets, hashed
and pinned (the digest was taken on the code before the rendering was shared); and a
fragment shared between the seats of one move holds nothing of any seat's own cards."""

import hashlib
import json
import random
from datetime import UTC, datetime

import pytest

from pbem import compose, notify
from pbem.engine import PRESETS, new_game, preset, pretty, view
from pbem.store.models import Game, Player, Seat
from tests.helpers import random_step

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
NAMES = ["ann", "bob <b&o>", "cy \"c\"", "di", "ed", "flo"]  # some to escape in HTML


@pytest.fixture
def fixed_links(monkeypatch):
    """Links and Message-IDs without their random or timed parts: the bytes depend on the
    table only."""
    def link_maker(cfg, game_id, seat, seq):
        where = f"{cfg.base_url}/m/{game_id}.{seat}.{seq}"
        return lambda a: f"{where}.{json.dumps(a, sort_keys=True)}"

    monkeypatch.setattr(notify, "link_maker", link_maker)
    monkeypatch.setattr(compose, "turn_message_id", lambda g, s, q, d: f"<turn.{g}.{s}.{q}@{d}>")


def table(name: str, n: int):
    game = Game(id=7, rules={"preset": name}, status="playing",
                time_control={"move_hours": 24, "remind_hours": []})
    players = {i + 1: Player(id=i + 1, email=f"p{i}@example.org", name=NAMES[i],
                             prefs={"notify": "every trick"} if i % 2 else {}) for i in range(n)}
    seats = [Seat(game_id=7, seat=i, player_id=i + 1, token=f"tok{i}") for i in range(n)]
    return game, seats, players


def answer(game, seats, players, st, seat) -> tuple[str, str]:
    """What pbem.mail.inbound renders for an answer to `seat`'s mail."""
    names = notify.seat_names(seats, players)
    cfg = notify.load()
    v = compose.context(view(st, seat), game.id, names)
    x = seats[seat]
    values = {"done": ["bid 4"], "error": None, "v": v, "names": names, "text": "Played.",
              "moves": compose.moves(v, notify.reply_address(cfg, x),
                                     notify.link_maker(cfg, game.id, seat, st.seq)),
              "table_url": f"{cfg.base_url}/t/{x.token}"}
    return compose.render("reply.txt", **values), compose.render("reply.html", **values)


def corpus(name: str, seed: int, steps: int = 400):
    """Every mail of a seeded random game: the rows notify.mails makes for each move, and
    the answer to the seat that moved."""
    rng = random.Random(seed)
    rules = preset(name)
    st = new_game(rules, first_dealer=seed % rules.players)
    game, seats, players = table(name, rules.players)
    for _ in range(steps):
        if st.phase == "over":
            break
        before, seq = (st.hand_no, len(st.tricks)), st.seq
        seat = random_step(st, rng)
        events = [{"type": "x", "seq": s} for s in range(seq + 1, st.seq + 1)] or [{"type": "x"}]
        for row in notify.mails(game, seats, players, st, events, before, now=NOW,
                                answered=seat):
            yield row["dedupe_key"], row["subject"], row["body_text"], row["body_html"]
        if seat is not None:
            yield ("answer", seat, *answer(game, seats, players, st, seat))


def digest(name: str, seed: int) -> tuple[str, int]:
    h, count = hashlib.sha256(), 0
    for item in corpus(name, seed):
        h.update(repr(item).encode())
        count += 1
    return h.hexdigest()[:16], count


def test_every_preset_renders_a_corpus(fixed_links):
    assert set(PINNED) == set(PRESETS)


PINNED: dict[str, tuple[str, int]] = {  # taken on lead at 3dc43e2, before this work
    "barmore": ("952e4fc7cf3e24ed", 915), "cutthroat-3": ("ab05230953f7cfb8", 851),
    "cutthroat-4": ("17cc1658a8cf6c21", 898), "dummy-3": ("a055baf4f6a6ed3b", 841),
    "mo": ("481306aa35825ea8", 899), "nyc": ("29fce865aba65328", 375),
    "six-handed": ("10980f992d223b45", 932), "standard": ("9a4be5063ff26c2b", 901),
    "suicide": ("d73a9dcc49643def", 901), "tournament-300": ("df60ce41815e980e", 899),
    "tournament-500": ("99d6738f8390dd52", 899), "two-handed": ("15fee4b4910f1688", 814),
    "whiz": ("01cf133c004ceb13", 902),
}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_mails_keep_their_bytes(fixed_links, name):
    assert digest(name, 3) == PINNED[name]


def held_cards(st) -> set[str]:
    """The cards in the seats' hands, but for those a deck of two (six-handed) also has on
    the table, face up."""
    shown = {c for _, c in st.trick} | {c for t, _ in st.tricks[-1:] for _, c in t}
    return {pretty(c) for hand in st.hands for c in hand if c not in shown}


@pytest.mark.parametrize("name", ["standard", "dummy-3", "six-handed", "two-handed", "mo"])
def test_the_shared_fragment_holds_nothing_of_a_seat(name):
    """At every move, the public part of the table is the same from every seat's view (so
    one rendering may go to all), and it shows no card any seat holds."""
    rng = random.Random(5)
    st = new_game(preset(name), first_dealer=0)
    names = NAMES[:st.n]
    for _ in range(300):
        if st.phase == "over":
            break
        random_step(st, rng)
        views = [compose.context(view(st, s), 7, names) for s in range(st.n)]
        publics = [compose.public_view(v) for v in views]
        assert all(p == publics[0] for p in publics), "a seat's view leaks into the fragment"
        held = held_cards(st)
        for kind in ("txt", "html"):
            out = {compose.shared(kind, v, names) for v in views}
            assert len(out) == 1
            text = out.pop()
            shown = [c for c in held if c in text]
            assert not shown, f"a held card in the shared {kind} fragment: {shown}"


def test_the_fragment_is_never_another_tables():
    """Two tables at the same state but with other players' names: each its own words."""
    st = new_game(preset("standard"), first_dealer=0)
    random_step(st, random.Random(1))
    random_step(st, random.Random(1))
    v = compose.context(view(st, 0), 7, NAMES[:4])
    other = ["zed", "yan", "xi", "wu"]
    assert "zed" not in compose.shared("txt", v, NAMES[:4])
    assert "zed" in compose.shared("txt", compose.context(view(st, 0), 7, other), other)
