"""The score pad's cache (issue 15): rendered once per game and seq, under an ETag that
answers 304 until the game moves, a name changes, the reader signs in or the code that
renders it changes; a signed-in reader's pad never reaches anyone else; a finished game's
pad read from the cached state without copying it (or changing it)."""

import shutil
from pathlib import Path

from sqlmodel import select

from pbem.engine import preset
from pbem.engine.state import State
from pbem.play import start
from pbem.store.games import create_game
from pbem.store.models import Player
from pbem.web import app as web_app
from pbem.web import pad_cache
from tests.web_helpers import drive, game_state, humans_game, make_app, sign_in


def get(client, gid, tag=None):
    return client.get(f"/g/{gid}", headers={"If-None-Match": f'"{tag}"'} if tag else {})


def tag_of(r) -> str:
    return r.headers["ETag"].strip('"')


def forget(client) -> None:
    """Drop the pads this client's app rendered."""
    client.application.extensions["pbem.pads"].clear()


def test_a_pad_answers_304_until_its_game_moves(store, client):
    gid = humans_game(store, preset("standard"))
    first = get(client, gid)
    assert first.status_code == 200 and "Playing: hand 1." in first.text
    assert first.headers["Cache-Control"] == "no-cache" and "Cookie" in first.headers["Vary"]
    again = get(client, gid, tag_of(first))
    assert again.status_code == 304 and again.data == b"" and tag_of(again) == tag_of(first)
    forget(client)  # what was kept is what a fresh render makes
    assert get(client, gid).text == first.text

    drive(store, gid, lambda st: st.hand_no == 1)  # a hand is scored: the pad has a row
    moved = get(client, gid, tag_of(first))
    assert moved.status_code == 200 and tag_of(moved) != tag_of(first)
    assert "Playing: hand 2." in moved.text
    assert get(client, gid, tag_of(moved)).status_code == 304


def test_a_new_name_or_signing_in_is_a_new_pad(store, client):
    gid = humans_game(store, preset("standard"))
    first = get(client, gid)
    with store.session() as s:
        p = s.exec(select(Player).where(Player.email == "p1@x.test")).one()
        p.name = "Zelda"
        s.add(p)
        s.commit()
    renamed = get(client, gid, tag_of(first))
    assert renamed.status_code == 200 and "Zelda" in renamed.text and "Zelda" not in first.text
    sign_in(client, store, "p1@x.test")
    signed = get(client, gid, tag_of(renamed))
    assert signed.status_code == 200 and 'href="/home"' in signed.text
    assert 'href="/home"' not in renamed.text

    private = humans_game(store, preset("standard"), public=False)
    assert get(client, private).status_code == 404  # cached or not, still its players' only


def test_a_finished_games_pad_lends_the_cached_state(store, client, monkeypatch):
    gid = create_game(store, preset("standard"), ["robot"] * 4)
    start(store, gid)  # four robots play it to the end
    final = game_state(store, gid)
    assert final.phase == "over"

    def no_copy(self):
        raise AssertionError("a view copied the game's state")

    assert get(client, gid).status_code == 200  # the state is in the cache now
    lent = store._states[gid]
    forget(client)
    monkeypatch.setattr(State, "snapshot", no_copy)
    r = get(client, gid)
    assert r.status_code == 200 and "Over: " in r.text and " won." in r.text
    assert store._states[gid] is lent and lent.seq == final.seq  # kept back, unchanged
    assert lent.scores == final.scores and lent.phase == "over"


def test_a_signed_in_pad_never_reaches_a_reader_not_signed_in(store, client, app):
    gid = humans_game(store, preset("standard"))
    sign_in(client, store, "p1@x.test")
    mine = get(client, gid)
    assert mine.status_code == 200 and 'href="/home"' in mine.text
    anyone = app.test_client()
    theirs = get(anyone, gid, tag_of(mine))  # not even the signed-in page's tag is theirs
    assert theirs.status_code == 200 and tag_of(theirs) != tag_of(mine)
    assert 'href="/home"' not in theirs.text and "Sign in" in theirs.text
    assert 'href="/home"' not in get(anyone, gid).text


def test_a_changed_template_is_a_new_etag(store, client, tmp_path, monkeypatch):
    gid = humans_game(store, preset("standard"))
    first = get(client, gid)
    templates = tmp_path / "templates"
    shutil.copytree(Path(str(web_app.TEMPLATES)), templates)
    pad = templates / "web" / "pad.html"
    pad.write_text(pad.read_text().replace("Playing: hand", "Now playing: hand"))
    monkeypatch.setattr(web_app, "TEMPLATES", templates)
    changed = make_app(store, tmp_path, monkeypatch).test_client()
    r = get(changed, gid, tag_of(first))  # the old page's tag: no 304
    assert r.status_code == 200 and tag_of(r) != tag_of(first)
    assert "Now playing: hand 1." in r.text and "Now playing" not in first.text
    assert get(changed, gid, tag_of(r)).status_code == 304


def test_the_code_digest_follows_every_source_file(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "view.py").write_text("X = 1\n")
    (tmp_path / "pad.html").write_text("<p>pad</p>")
    first = pad_cache.code_digest(tmp_path)
    assert pad_cache.code_digest(tmp_path) == first
    (tmp_path / "web" / "view.py").write_text("X = 2\n")
    second = pad_cache.code_digest(tmp_path)
    assert second != first
    (tmp_path / "notes.bak").write_text("not code")
    assert pad_cache.code_digest(tmp_path) == second
    (tmp_path / "pad.html").write_text("<p>the pad</p>")
    assert pad_cache.code_digest(tmp_path) != second
