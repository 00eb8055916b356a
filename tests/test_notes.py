"""Private notes (issue 34): `note TEXT` by mail at a seat's address and the table page's box.
Only the author ever sees a note: their own table page and export. Another seat's page, the
organiser's page, the public pages and API, the game's log and export, every mail to anyone
else and the move log never hold it; forget deletes it; bad input and the bounds change
nothing; the same mail twice keeps one note."""

import itertools
import json

import pytest
from mail_helpers import headline, running, text
from sqlalchemy import func
from sqlmodel import select

from pbem.engine import preset
from pbem.league.manage import OPERATOR
from pbem.organise.seasons import start_season
from pbem.privacy.export import player_data
from pbem.privacy.forget import forget
from pbem.store import notes
from pbem.store.games import export
from pbem.store.models import League, Move, Note, Outbox, Player, Seat
from tests.league_helpers import fixtures, league, play_out
from tests.test_web import ROUTES
from tests.web_helpers import csrf, humans_game, posted, tokens

SECRET = "Partner-signal-zq7 means hold the ace"
_IDS = itertools.count()


def _seats(store, gid) -> list[Seat]:
    with store.session() as s:
        return list(s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)))


def _notes(store) -> list[tuple]:
    with store.session() as s:
        return sorted((n.game_id, n.player_id, n.text) for n in s.exec(select(Note)))


def _nowhere_else(store, client, gid, author_token, words=SECRET) -> None:
    """The words are in no page but the author's table, no mail, no log, no export."""
    others = [x.token for x in _seats(store, gid) if x.token != author_token]
    with store.session() as s:
        lg = s.exec(select(League)).first()
        mails = s.exec(select(Outbox)).all()
        moves = s.exec(select(Move).where(Move.game_id == gid)).all()
    pages = [f"/t/{t}" for t in others] + [f"/api/t/{t}" for t in others] + [
        f"/g/{gid}", f"/api/g/{gid}", "/", "/api/games"]
    if lg is not None:
        pages += [f"/o/{lg.admin_token}", f"/l/{lg.id}", f"/api/l/{lg.id}"]
    for page in pages:
        r = client.get(page)
        assert r.status_code == 200 and words not in r.text, page
    assert all(words not in (m.body_text or "") + (m.body_html or "") + m.subject
               for m in mails)
    assert all(words not in json.dumps(m.payload) for m in moves)
    assert words not in export(store, gid) and words not in export(store, gid, whole=False)


def test_notes_on_the_table_page_only_the_author_sees(app, store, client):
    lid = league(store, players=4)
    start_season(store, lid, OPERATOR)
    gid = fixtures(store, lid)[0].game_id
    author, other = _seats(store, gid)[:2]
    note_url = f"/t/{author.token}/note"
    assert client.post(note_url, data={"note": SECRET}).status_code == 400  # no CSRF
    assert client.post(f"/t/{'x' * 20}/note",
                       data={"note": SECRET, "csrf": csrf(client)}).status_code == 404
    for bad, words in (("", "write the note"), ("  \t ", "write the note"),
                       ("x" * 501, "at most 500 characters")):
        r = posted(client, note_url, {"note": bad, "csrf": csrf(client)})
        assert "The note was not kept." in r.text and words in r.text
    assert _notes(store) == []

    r = posted(client, note_url, {"note": SECRET + " <b>x</b>", "csrf": csrf(client)})
    assert "The note is kept (1 of at most 50" in r.text
    assert SECRET + " &lt;b&gt;x&lt;/b&gt;" in r.text and "<b>x</b>" not in r.text
    _nowhere_else(store, client, gid, author.token)
    play_out(store, gid)  # the game ends and the league counts it: still nowhere else
    _nowhere_else(store, client, gid, author.token)
    assert SECRET in client.get(f"/t/{author.token}").text

    # another seat cannot delete it, nor can the author delete what is not theirs
    [(_, _, kept)] = _notes(store)
    with store.session() as s:
        note_id = s.exec(select(Note.id)).one()
    r = posted(client, f"/t/{other.token}/note", {"delete": str(note_id), "csrf": csrf(client)})
    assert "not one of yours" in r.text and len(_notes(store)) == 1
    r = posted(client, note_url, {"delete": "x", "csrf": csrf(client)})
    assert "not one of yours" in r.text and len(_notes(store)) == 1
    r = posted(client, note_url, {"delete": str(note_id), "csrf": csrf(client)})
    assert "The note is deleted." in r.text and _notes(store) == []
    assert SECRET not in client.get(f"/t/{author.token}").text


def test_every_route_of_notes_is_tested_here():
    assert ROUTES["/t/<token>/note"] in globals()


def test_a_player_keeps_at_most_so_many_notes_on_a_game(store):
    gid = humans_game(store, preset("standard"))
    pid = _seats(store, gid)[0].player_id
    for i in range(notes.MAX_NOTES):
        assert notes.add(store, gid, pid, f"note {i}") == i + 1
    with pytest.raises(notes.NoteRefused, match="50 notes on this game already"):
        notes.add(store, gid, pid, "one more")
    assert len(_notes(store)) == notes.MAX_NOTES
    other = _seats(store, gid)[1].player_id  # each player's own count
    assert notes.add(store, gid, other, "mine") == 1


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def _send(env, gid, seat, body, mid=None):
    msg = env.mail(env.address(gid, seat), body, frm=f"p{seat}@x.test",
                   mid=mid or f"<note{next(_IDS)}@x.test>")
    assert env.send(msg)[0] == 250
    return msg


def test_a_note_by_mail_is_kept_once_and_told_to_no_one_else(env, app, client):
    store = env.store
    gid = humans_game(store, preset("standard"))
    env.replies()
    author = _seats(store, gid)[1]
    before = store_moves(store, gid)
    msg = _send(env, gid, 1, f"note {SECRET}", mid="<note-twice@x.test>")
    [answer] = [m for m in env.replies() if str(m["To"]) == "p1@x.test"]
    assert "note: kept, 1 of at most 50" in text(answer), text(answer)
    assert SECRET not in text(answer)  # the answer says it was kept, not its words
    assert "not done" not in headline(answer).lower()
    assert env.send(msg)[0] == 250  # the same mail again keeps nothing more
    assert _notes(store) == [(gid, author.player_id, SECRET)]
    assert store_moves(store, gid) == before  # no move, no log
    assert [m for m in env.replies() if str(m["To"]) != "p1@x.test"] == []
    _nowhere_else(store, client, gid, author.token)
    assert SECRET in client.get(f"/t/{author.token}").text

    _send(env, gid, 1, "note " + "x" * 501)
    assert "at most 500 characters" in text(env.replies()[-1])
    assert len(_notes(store)) == 1


def store_moves(store, gid) -> int:
    with store.session() as s:
        return s.exec(select(func.count()).select_from(Move).where(Move.game_id == gid)).one()


def test_the_authors_export_has_their_notes_and_forget_deletes_them(store):
    gid = humans_game(store, preset("standard"))
    mine, theirs = [x.player_id for x in _seats(store, gid)[:2]]
    notes.add(store, gid, mine, SECRET)
    notes.add(store, gid, theirs, "their own words")
    data = player_data(store, mine)
    assert [n["text"] for n in data["notes"]] == [SECRET] and data["notes"][0]["game"] == gid
    assert "their own words" not in json.dumps(data, default=str)
    assert SECRET not in json.dumps(player_data(store, theirs), default=str)
    forget(store, mine)
    assert _notes(store) == [(gid, theirs, "their own words")]
    with store.session() as s:
        assert s.get(Player, mine).email.endswith("@forgotten.test")
    assert tokens(store, gid)  # the game stands
