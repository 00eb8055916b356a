"""A player's own data by mail and on the web (issue 31), through the running SMTP handler,
the outbox and the web app, on SQLite and PostgreSQL: `export` mails the player's JSON to
their own address, with no card of a game in play that their seat may not see; a forged
From gets nothing and changes nothing; `forget me` and the home page's button forget only
after a confirmation."""

import json
import re
from email.utils import make_msgid

import pytest
from mail_helpers import ANN, account, crafted, running, state, text
from privacy_helpers import dump
from sqlmodel import select
from web_helpers import BASE, csrf, database, sign_in

from pbem.config import load
from pbem.engine import choose, view
from pbem.play import submit
from pbem.store.models import Outbox, Player
from pbem.web.app import create_app

CARD = re.compile(r"^(10|[2-9JQKA])[SHDC]$")
LINK = re.compile(re.escape(BASE) + r"(/forget/\S+)")


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    monkeypatch.setenv("PBEM_BASE_URL", BASE)
    with running(store, monkeypatch, tmp_path) as e:
        e.gid, _hands = crafted(store)
        for _ in range(6):  # bids and a card or two: a hand in play
            st = state(store, e.gid)
            seat = st.to_act()[0]
            submit(store, e.gid, seat, choose(view(st, seat), seed=2, rules=st.rules),
                   expect_seq=st.seq, source="web")
        e.replies()
        yield e


def _still(store) -> dict:
    return {k: v for k, v in database(store).items() if k not in ("outbox", "inbound")}


def _attached(mails) -> list[dict]:
    return [json.loads(part.get_content()) for m in mails for part in m.iter_attachments()]


def _cards(value) -> set[str]:
    """Every card named anywhere in a JSON value."""
    if isinstance(value, dict):
        return set().union(*map(_cards, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_cards, value)) if value else set()
    return {value} if isinstance(value, str) and CARD.match(value) else set()


def test_export_by_mail_holds_only_what_the_seat_may_see(env):
    assert env.send(env.mail(account(env), "export"))[0] == 250
    mails = env.replies()
    assert all(m["To"] == ANN for m in mails)
    assert any("export: your data goes" in text(m) for m in mails)
    [data] = _attached(mails)
    assert data["player"]["email"] == ANN
    [mine] = [g for g in data["games"] if g["game"] == env.gid]
    st = state(env.store, env.gid)
    hidden = {c for seat in range(1, 4) for c in st.hands[seat]}
    assert hidden and len(st.hands[0]) < 13  # cards are out, and others' hands are hidden
    assert sorted(mine["view"]["hand"]) == sorted(st.hands[0])
    assert not _cards(mine) & hidden, "another seat's card in the export"
    assert mine["log"][1:] == []  # no hand finished: nothing of the deal in play
    # asked again the same day: no second export (it is bounded), the answer says so
    assert env.send(env.mail(account(env), "export", mid=make_msgid()))[0] == 250
    again = env.replies()
    assert _attached(again) == [] and any("today already" in text(m) for m in again)


def test_an_export_at_a_forged_from_changes_nothing_and_sends_no_data(env):
    before = _still(env.store)
    assert env.send(env.mail(account(env), "export", frm="eve@evil.example"))[0] == 250
    mails = env.replies()
    assert _still(env.store) == before and _attached(mails) == []
    assert all(m["To"] == ANN for m in mails)  # the owner is told, the forger hears nothing
    with env.store.reader() as s:
        assert not s.exec(select(Outbox).where(Outbox.dedupe_key.like("pbem.export:%"))).all()


def _app(env):
    return create_app(load(), env.store, testing=True).test_client()


def test_forget_me_by_mail_asks_first_and_the_link_forgets(env):
    assert env.send(env.mail(account(env), "forget me"))[0] == 250
    mails = env.replies()
    path = next(LINK.search(text(m)).group(1) for m in mails if LINK.search(text(m)))
    before = _still(env.store)
    client = _app(env)
    changed = path[:-4] + ("BBBB" if path.endswith("AAAA") else "AAAA")
    for bad in (changed, "/forget/nonsense"):  # a changed or made-up link
        assert client.post(bad, data={"csrf": csrf(client)}).status_code == 400
    assert _still(env.store) == before
    page = client.get(path)
    assert page.status_code == 200 and "Forget me for good" in page.text
    assert _still(env.store) == before  # a GET (a mail scanner's) forgets nothing
    r = client.post(path, data={"csrf": csrf(client)})
    assert r.status_code == 303
    with env.store.reader() as s:
        assert s.exec(select(Player).where(Player.email == ANN)).first() is None
    assert client.post(path, data={"csrf": csrf(client)}).status_code == 409
    assert ANN not in repr(dump(env.store))


def test_forget_me_needs_the_word_me(env):
    before = _still(env.store)
    assert env.send(env.mail(account(env), "forget"))[0] == 250
    [answer] = env.replies()
    assert "write: forget me" in text(answer) and _still(env.store) == before


def test_the_home_page_downloads_and_forgets_after_a_confirm(env):
    client = _app(env)
    sign_in(client, env.store, ANN)
    home = client.get("/home").text
    assert "/home/data.json" in home and "/home/forget" in home
    r = client.get("/home/data.json")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    got = json.loads(r.data)
    assert got["player"]["email"] == ANN and [g["game"] for g in got["games"]] == [env.gid]
    before = _still(env.store)
    assert "Forget me for good" in client.get("/home/forget").text
    assert _still(env.store) == before
    r = client.post("/home/forget", data={"csrf": csrf(client)})
    assert r.status_code == 303
    assert ANN not in repr(dump(env.store))
    assert "/signin" in client.get("/home").headers["Location"]
    assert client.get("/home/data.json").status_code == 302  # signed out: nothing to give
