"""Helpers for the web tests: an app on the test's database, CSRF, games driven to a point."""

import mailbox
import re
from html.parser import HTMLParser

from sqlalchemy import func
from sqlmodel import SQLModel, select

from pbem.config import load
from pbem.engine import choose, view
from pbem.play import start, submit
from pbem.store.games import create_game
from pbem.store.models import Game, Move, Outbox, Seat
from pbem.store.outbox import drain, maildir_delivery
from pbem.web.app import create_app

BASE = "http://pbem.test"


def make_app(store, tmp_path, monkeypatch, secret: str | None = None):
    """The app as `pbem serve` builds it, on this test's database and var dir. The turn
    mails (pbem.notify) load the settings themselves: the environment is set for them too."""
    monkeypatch.setenv("PBEM_VAR_DIR", str(tmp_path))
    monkeypatch.setenv("PBEM_BASE_URL", BASE)
    if secret is None:
        monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    else:
        monkeypatch.setenv("PBEM_SECRET_KEY", secret)
    return create_app(load(), store, testing=True)


def csrf(client) -> str:
    """The CSRF value of this browser's session, read from a real form (the home page's:
    no POST but sign-out leads there, so reading it takes no other page's notice)."""
    r = client.get("/")
    return re.search(r'name="csrf" value="([^"]+)"', r.text).group(1)


def order_form(client, token: str) -> dict:
    """The csrf and signed `form` fields of a seat's order forms, read from its table page
    as a browser has them (each page shown has its own `form`: pbem.web.tables)."""
    page = client.get(f"/t/{token}").text
    return {k: re.search(rf'name="{k}" value="([^"]+)"', page).group(1)
            for k in ("csrf", "form")}


def posted(client, path: str, data: dict, to: str | None = None):
    """POST as a browser does: the answer must be 303 (to `to`, if given); the page it leads
    to, with what the POST had to say."""
    r = client.post(path, data=data)
    assert r.status_code == 303, (r.status_code, r.text[-600:])
    assert to is None or r.headers["Location"] == to, r.headers["Location"]
    return client.get(r.headers["Location"])


def game_state(store, gid):
    with store.session() as s:
        st = store.state(s, s.get(Game, gid))
    store.keep(gid, st)
    return st.snapshot()


def counts(store, gid=None) -> tuple[int, int]:
    """(moves, outbox rows): what a GET must never change."""
    with store.session() as s:
        q_moves, q_out = select(func.count(Move.id)), select(func.count(Outbox.id))
        if gid is not None:
            q_moves = q_moves.where(Move.game_id == gid)
            q_out = q_out.where(Outbox.game_id == gid)
        return s.exec(q_moves).one(), s.exec(q_out).one()


def seats(store, gid) -> list[Seat]:
    with store.session() as s:
        return list(s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)).all())


def tokens(store, gid) -> list[str]:
    return [x.token for x in seats(store, gid)]


def humans_game(store, rules, public=True, first_dealer=0) -> int:
    """A started game with a human (p<i>@x.test) in every seat."""
    who = [f"p{i}@x.test" for i in range(rules.players)]
    gid = create_game(store, rules, who, first_dealer=first_dealer, public=public)
    start(store, gid)
    return gid


def drive(store, gid, stop, seed=0, limit=5000):
    """Humans move as the robot would choose, through play.submit, until stop(state)."""
    for _ in range(limit):
        st = game_state(store, gid)
        if stop(st) or st.phase == "over":
            return st
        seat = st.to_act()[0]
        action = choose(view(st, seat), seed=seed, rules=st.rules)
        submit(store, gid, seat, action, expect_seq=st.seq, source="web")
    raise AssertionError("the game did not reach the point asked for")


class Forms(HTMLParser):
    """Every <form>: its action, method and inputs (name, value), and its button texts."""

    def __init__(self, text: str):
        super().__init__()
        self.forms, self._in_button = [], False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action"), "method": a.get("method", "get"),
                               "inputs": [], "buttons": []})
        elif tag == "input" and self.forms:
            self.forms[-1]["inputs"].append((a.get("name"), a.get("value", ""), a.get("type")))
        elif tag == "button" and self.forms:
            self._in_button = True
            self.forms[-1]["buttons"].append({"name": a.get("name"), "value": a.get("value"),
                                              "text": ""})

    def handle_endtag(self, tag):
        if tag == "button":
            self._in_button = False

    def handle_data(self, data):
        if self._in_button and self.forms:
            self.forms[-1]["buttons"][-1]["text"] += data


def move_forms(html: str) -> list[dict]:
    """The table's move buttons: each as the form data it posts, with its label."""
    out = []
    for f in Forms(html).forms:
        if f["action"] and f["action"].endswith("/move") and f["buttons"]:
            data = {n: v for n, v, t in f["inputs"] if n and t != "checkbox"}
            out.append({"action": f["action"], "data": data, "label": f["buttons"][0]["text"]})
    return out


def mail_links(html: str) -> list[tuple[str, str]]:
    """(label, path) of every /m/ move link in a turn mail's HTML part."""
    found = re.findall(r'href="' + re.escape(BASE) + r'(/m/[A-Za-z0-9_.\-]+)"[^>]*>([^<]*)<',
                       html)
    return [(label, path) for path, label in found]


def confirmation_links(store, to: str) -> list[str]:
    """The paths of the confirmation links mailed to `to` (new games, new leagues), oldest
    first."""
    with store.session() as s:
        rows = s.exec(select(Outbox).where(Outbox.to_addr == to).order_by(Outbox.id)).all()
    return [m.group(1) for row in rows for m in
            [re.search(re.escape(BASE) + r"(/(?:l/)?new/confirm/[A-Za-z0-9_.\-]+)",
                       row.body_text)] if m]


def confirmed(client, store, path: str, form: dict, to: str):
    """POST a /new or /l/new form, then press the button behind the link it mailed to `to`:
    the response to that press."""
    r = client.post(path, data=form, follow_redirects=True)
    assert r.status_code == 200 and "Check your mail" in r.text, r.text[-800:]
    link = confirmation_links(store, to)[-1]
    return client.post(link, data={"csrf": csrf(client)})


def sent_mail(store, tmp_path) -> list:
    """Send the outbox as `pbem serve` does (into a Maildir): the messages that went out."""
    box = tmp_path / "mail"
    drain(store, maildir_delivery(box, "pbem.test"))
    return list(mailbox.Maildir(str(box), create=False))


def from_(ip: str) -> dict:
    """A test client request's keywords for coming from client address `ip`."""
    return {"environ_base": {"REMOTE_ADDR": ip}}


SIGN_IN_LINK = re.compile(r"https?://[^/\s]+(/signin/[A-Za-z0-9_.\-]+)")


def sign_in(client, store, email: str) -> None:
    """Sign `client` in as `email` as a person does: the form, the mailed link's button."""
    r = client.post("/signin", data={"csrf": csrf(client), "email": email},
                    follow_redirects=True)
    assert r.status_code == 200 and "Check your mail" in r.text, r.text[-400:]
    with store.session() as s:
        body = s.exec(select(Outbox.body_text).where(Outbox.to_addr == email)
                      .order_by(Outbox.id.desc())).first()
    link = SIGN_IN_LINK.search(body).group(1)
    r = client.post(link, data={"csrf": csrf(client)})
    assert r.status_code == 303 and r.headers["Location"] == "/home", r.text[-400:]


def database(store) -> dict:
    """Every row of every table: what a refused request must leave exactly as it was."""
    with store.session() as s:
        return {t.name: sorted(map(repr, s.connection().execute(t.select()).all()))
                for t in SQLModel.metadata.sorted_tables}
