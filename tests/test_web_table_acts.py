"""The table page's talk, undo and resign forms: what they do, and the attacks (no CSRF,
a stranger's token, someone else's move, HTML in talk, an over-long say, a finished game)."""

import re

from sqlmodel import select

from pbem.engine import preset
from pbem.store.models import Outbox, Player
from tests.test_web import ROUTES, _turn_mail
from tests.web_helpers import (
    Forms,
    counts,
    csrf,
    game_state,
    humans_game,
    mail_links,
    move_forms,
    posted,
    tokens,
)


def _form(html, path_end, button=None):
    """The data a form posting to ...`path_end` sends (with its button's name and value)."""
    for f in Forms(html).forms:
        if f["action"] and f["action"].endswith(path_end):
            data = {n: v for n, v, t in f["inputs"] if n}
            b = next((b for b in f["buttons"] if button is None or button in b["text"]), None)
            if b is not None:
                if b["name"]:
                    data[b["name"]] = b["value"]
                return f["action"], data, b["text"]
    return None


def _talk_mails(store, gid):
    with store.session() as s:
        return {r.dedupe_key: r for r in s.exec(select(Outbox).where(
            Outbox.game_id == gid, Outbox.dedupe_key.startswith("say:")))}


def test_every_route_of_this_page_is_tested_here():
    here = {name for name in globals() if name.startswith("test_")}
    ours = {r: t for r, t in ROUTES.items() if r.split("/")[-1] in ("say", "undo", "resign")}
    assert len(ours) == 3 and set(ours.values()) <= here


def test_say_on_the_table_page(store, client):
    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)
    with store.session() as s:  # seat 3 hears of talk in the daily digest only
        p3 = s.exec(select(Player).where(Player.email == "p3@x.test")).one()
        p3.prefs = dict(p3.prefs or {}, notify="digest")
        s.add(p3)
        s.commit()
    action, data, _ = _form(client.get(f"/t/{tok[1]}").text, "/say")
    data["text"] = '<script>alert("x")</script> good luck & have fun'
    before = counts(store, gid)
    assert client.post(action, data={"text": "hi"}).status_code == 400  # no CSRF
    assert client.post(f"/t/{'x' * 20}/say", data=data).status_code == 404  # a stranger
    assert "at most 300" in posted(client, action, dict(data, text="x" * 301)).text
    r = posted(client, action, dict(data, text="x" * 2000))
    assert r.status_code == 200 and "at most 300" in r.text
    assert counts(store, gid) == before
    r = posted(client, action, data)
    assert r.status_code == 200 and "Said." in r.text
    for t in tok:  # every seat's page shows it, escaped
        page = client.get(f"/t/{t}").text
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; good luck &amp; have fun" in page
        assert "<script>" not in page
    mails = _talk_mails(store, gid)
    seq = game_state(store, gid).seq
    assert set(mails) == {f"say:{gid}:{seq}:0", f"say:{gid}:{seq}:2"}  # not the speaker,
    assert "<script>alert" in mails[f"say:{gid}:{seq}:0"].body_text  # nor the digest reader
    from pbem.digest import send_digests

    assert send_digests(store) == 1
    with store.session() as s:
        digest = s.exec(select(Outbox).where(Outbox.to_addr == "p3@x.test",
                                             Outbox.dedupe_key.startswith("digest:"))).one()
    assert "p1 said: <script>alert" in digest.body_text


def test_a_say_does_not_stale_another_seats_links(store, client):
    gid = humans_game(store, preset("standard"))
    st = game_state(store, gid)
    seat = st.to_act()[0]
    links = dict(mail_links(_turn_mail(store, gid, seat).body_html))
    page_bid = next(f for f in move_forms(client.get(f"/t/{tokens(store, gid)[seat]}").text)
                    if f["label"] == "Bid 3")
    other = tokens(store, gid)[(seat + 1) % 4]
    action, data, _ = _form(client.get(f"/t/{other}").text, "/say")
    assert posted(client, action, dict(data, text="no rush")).status_code == 200
    r = client.get(links["bid 4"])
    assert r.status_code == 200 and "Confirm: Bid 4" in r.text  # the mailed link still works
    r = posted(client, links["bid 4"], {"csrf": csrf(client)})
    assert r.status_code == 200 and "Done: Bid 4." in r.text
    r = posted(client, page_bid["action"], page_bid["data"])  # my own move made: stale
    assert r.status_code == 200 and "moved on" in r.text


def test_undo_on_the_table_page(store, client):
    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)
    seat = game_state(store, gid).to_act()[0]
    nxt = (seat + 1) % 4
    bid3 = next(f for f in move_forms(client.get(f"/t/{tok[seat]}").text) if f["label"] == "Bid 3")
    r = posted(client, bid3["action"], bid3["data"])
    assert "Take back your bid of 3" in r.text
    action, data, _ = _form(r.text, "/undo")
    nxt_bid = move_forms(client.get(f"/t/{tok[nxt]}").text)[0]
    assert _form(client.get(f"/t/{tok[nxt]}").text, "/undo") is None  # nothing of theirs
    before = counts(store, gid)
    r = posted(client, f"/t/{tok[nxt]}/undo", data)  # someone else's move
    assert r.status_code == 200 and "no move of yours" in r.text
    assert "Which move?" in posted(client, action, dict(data, seq="x")).text
    assert client.post(action, data={"seq": data["seq"]}).status_code == 400  # no CSRF
    assert counts(store, gid) == before
    r = posted(client, action, data)
    assert r.status_code == 200 and "Taken back" in r.text
    st = game_state(store, gid)
    assert st.bids[seat] is None and st.to_act() == [seat]
    r = posted(client, nxt_bid["action"], nxt_bid["data"])  # the next seat's old button
    assert r.status_code == 200 and "moved on" in r.text
    r = posted(client, action, data)  # twice: nothing left to take back
    assert r.status_code == 200 and "no move of yours" in r.text
    # a bid, then the next seat bids: too late to take it back
    posted(client, bid3["action"], dict(bid3["data"], seq=str(st.seq)))
    nxt_bid = move_forms(client.get(f"/t/{tok[nxt]}").text)[0]
    assert posted(client, nxt_bid["action"], nxt_bid["data"]).status_code == 200
    assert "Take back" not in client.get(f"/t/{tok[seat]}").text
    r = posted(client, action, dict(data, seq=str(st.seq + 1)))
    assert r.status_code == 200 and "no move of yours" in r.text


def test_resign_on_the_table_page_asks_to_confirm(store, client):
    gid = humans_game(store, preset("standard"))
    tok = tokens(store, gid)
    action, data, text = _form(client.get(f"/t/{tok[0]}").text, "/resign")
    assert text == "Resign…"
    before = counts(store, gid)
    r = posted(client, action, data)  # the first press only asks
    assert r.status_code == 200 and "Yes, resign" in r.text and counts(store, gid) == before
    assert "only when p2 resign too" in r.text
    confirm = _form(r.text, "/resign", "Yes")
    r = posted(client, confirm[0], confirm[1])
    assert "You offered to resign" in r.text
    page = client.get(f"/t/{tok[2]}").text
    assert "p0 offered to resign." in page and "If you resign too" in page
    assert "p0 offered to resign." in client.get(f"/t/{tok[1]}").text  # every seat sees it
    with store.session() as s:
        told = {r.to_addr for r in s.exec(select(Outbox).where(
            Outbox.dedupe_key.startswith(f"concede:{gid}:")))}
    assert told == {"p1@x.test", "p2@x.test", "p3@x.test"}
    off = _form(client.get(f"/t/{tok[0]}").text, "/resign", "Take back")
    assert "taken back" in posted(client, off[0], off[1]).text
    assert game_state(store, gid).offers == set()
    posted(client, confirm[0], confirm[1])
    r = posted(client, f"/t/{tok[2]}/resign", dict(confirm[1]))
    assert r.status_code == 200 and "your side gave the game up" in r.text
    st = game_state(store, gid)
    assert st.phase == "over" and st.winner == 1
    assert re.search(r"The game is over", r.text)
    r = posted(client, f"/t/{tok[1]}/say", {"csrf": confirm[1]["csrf"], "text": "gg"})
    assert r.status_code == 200 and "the game is over" in r.text


def test_the_turn_mail_after_an_undo_tells_the_deadline_the_seat_keeps(store):
    """An undo gives the seat back the deadline it had for that move (pbem.play), so the
    turn mail it gets says that one, not one counted from the undo."""
    from datetime import UTC, datetime, timedelta

    import time_machine

    from pbem.play import submit
    from pbem.store.models import Deadline

    def armed(gid, seat):
        with store.reader() as s:
            return s.exec(select(Deadline.due).where(
                Deadline.game_id == gid, Deadline.seat == seat, Deadline.kind == "timeout",
                Deadline.state == "pending")).one().strftime("%a %d %b %Y, %H:%M UTC")

    with time_machine.travel(datetime(2026, 3, 2, 9, 0, tzinfo=UTC), tick=True) as t:
        gid = humans_game(store, preset("standard"))
        seat = game_state(store, gid).to_act()[0]
        kept = armed(gid, seat)
        t.shift(timedelta(hours=3))
        submit(store, gid, seat, {"type": "bid", "bid": 3}, source="web")
        t.shift(timedelta(hours=1))
        submit(store, gid, seat, {"type": "undo"}, source="web")
    assert armed(gid, seat) == kept
    assert f"Your move is due by {kept}." in _turn_mail(store, gid, seat).body_text
