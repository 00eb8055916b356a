"""How players hear of others' moves: a mail when a hand is scored (the default, with the new
hand to bid ahead on), at every trick, or once a day in the digest."""

from datetime import date

from sqlmodel import select

from pbem.digest import send_digests
from pbem.engine import choose, preset, view
from pbem.play import start, submit
from pbem.store.games import create_game
from pbem.store.models import Outbox, Player

HUMANS = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"]


def _prefer(store, email, how):
    with store.session() as s:
        p = s.exec(select(Player).where(Player.email == email)).one()
        p.prefs = dict(p.prefs, notify=how)
        s.add(p)
        s.commit()


def _mails(store, like):
    with store.session() as s:
        return s.exec(select(Outbox).where(Outbox.dedupe_key.like(like))).all()


def test_news_every_trick_or_once_a_day(store):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=3)
    _prefer(store, "bob@example.org", "digest")
    _prefer(store, "ann@example.org", "every turn")  # the old name of every trick
    _prefer(store, "cy@example.org", "every trick")
    st = start(store, gid).state
    while len(st.tricks) < 2:  # bids, then two whole tricks
        seat = st.to_act()[0]
        st = submit(store, gid, seat, choose(view(st, seat), seed=st.seq)).state
    news = {m.to_addr for m in _mails(store, f"news:{gid}:%")}
    assert "bob@example.org" not in news and "di@example.org" not in news  # digest; default
    assert {"ann@example.org", "cy@example.org"} & news
    assert send_digests(store, date(2026, 11, 22)) == 1
    [digest] = _mails(store, "digest:%")
    assert digest.to_addr == "bob@example.org" and f"Game {gid}" in digest.body_text
    assert send_digests(store, date(2026, 11, 22)) == 0  # once a day
    assert send_digests(store, date(2026, 11, 23)) == 0  # nothing new since


def test_by_default_news_comes_once_a_hand_with_the_new_hand_to_bid_ahead_on(store):
    no_blind = preset("standard").with_options(blind_nil_behind=1000)  # every seat looks
    gid = create_game(store, no_blind, HUMANS, first_dealer=3)
    st = start(store, gid).state
    while st.hand_no == 0:  # a whole hand
        seat = st.to_act()[0]
        st = submit(store, gid, seat, choose(view(st, seat), seed=st.seq)).state
    news = _mails(store, f"news:{gid}:%")
    first = st.to_act()[0]  # the new hand's first bidder has its turn mail instead
    assert sorted(m.to_addr for m in news) == sorted(h for i, h in enumerate(HUMANS)
                                                     if i != first)
    for m in news:
        seat = HUMANS.index(m.to_addr)
        assert "hand 1 was scored: ann & cy bid " in m.body_text
        assert "Reply with your bid now (bid 4, nil) and it is kept and made at your turn" \
            in m.body_text
        assert all(c in m.body_text for c in _hand_words(st, seat))  # its own new hand


def _hand_words(st, seat) -> list[str]:
    from pbem.engine import pretty

    return [pretty(c) for c in st.hands[seat]]
