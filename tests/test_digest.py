"""Players who chose the digest hear of their games once a day, not at every trick."""

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


def test_news_every_turn_or_once_a_day(store):
    gid = create_game(store, preset("standard"), HUMANS, first_dealer=3)
    _prefer(store, "bob@example.org", "digest")
    st = start(store, gid).state
    while len(st.tricks) < 2:  # bids, then two whole tricks
        seat = st.to_act()[0]
        st = submit(store, gid, seat, choose(view(st, seat), seed=st.seq)).state
    news = {m.to_addr for m in _mails(store, f"news:{gid}:%")}
    assert "bob@example.org" not in news and {"ann@example.org", "cy@example.org"} & news
    assert send_digests(store, date(2026, 11, 22)) == 1
    [digest] = _mails(store, "digest:%")
    assert digest.to_addr == "bob@example.org" and f"Game {gid}" in digest.body_text
    assert send_digests(store, date(2026, 11, 22)) == 0  # once a day
    assert send_digests(store, date(2026, 11, 23)) == 0  # nothing new since
