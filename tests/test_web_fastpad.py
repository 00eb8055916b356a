"""The score pad's fast lane (pbem.web.fastpad): a reader without a session cookie gets the
cached pad, byte for byte and header for header what the app gives; anything it cannot
answer alike (a session, a pad not rendered, a private game, a game that moved) goes to the
app, and a signed-in reader's pad never reaches anyone else."""

from werkzeug.test import EnvironBuilder

from pbem.engine import preset
from pbem.web import pad_cache
from tests.web_helpers import csrf, drive, humans_game, sign_in


def lane(app, path: str, **kw):
    """What the fast lane answers for a GET of `path` (None: it leaves it to the app)."""
    return app.wsgi_app.answer(EnvironBuilder(path=path, **kw).get_environ())


def same_answer(a, b) -> None:
    assert a.status_code == b.status_code and a.data == b.data
    assert sorted(a.headers.items()) == sorted(b.headers.items())


def test_the_lane_answers_a_cached_pad_as_the_app_does(store, app):
    gid = humans_game(store, preset("standard"))
    pad_cache.clear()
    assert lane(app, f"/g/{gid}") is None  # not rendered yet: the app renders it
    rendered = app.test_client().get(f"/g/{gid}")
    assert rendered.status_code == 200 and "Playing: hand 1." in rendered.text
    status, _, body = lane(app, f"/g/{gid}")
    assert status == "200 OK" and body == rendered.data
    same_answer(app.test_client().get(f"/g/{gid}"), rendered)

    tag = rendered.headers["ETag"]
    status, headers, body = lane(app, f"/g/{gid}", headers={"If-None-Match": tag})
    assert status.startswith("304") and body == b"" and ("ETag", tag) in headers
    by_lane = app.test_client().get(f"/g/{gid}", headers={"If-None-Match": tag})
    browser = app.test_client()  # a session cookie: the app itself answers, the same
    csrf(browser)
    assert lane(app, f"/g/{gid}", headers={"Cookie": "session=x"}) is None
    same_answer(browser.get(f"/g/{gid}", headers={"If-None-Match": tag}), by_lane)
    same_answer(browser.get(f"/g/{gid}"), rendered)


def test_the_lane_leaves_what_it_cannot_answer_alike_to_the_app(store, app):
    gid = humans_game(store, preset("standard"))
    private = humans_game(store, preset("standard"), public=False)
    client = app.test_client()
    client.get(f"/g/{gid}")
    assert lane(app, f"/g/{gid}") is not None
    assert lane(app, f"/g/{gid}", query_string="x=1") is None
    assert lane(app, f"/g/{gid}", method="HEAD") is None
    assert lane(app, f"/g/{private}") is None and client.get(f"/g/{private}").status_code == 404
    assert lane(app, "/g/99999999999") is None and lane(app, "/g/12345") is None

    drive(store, gid, lambda st: st.hand_no == 1)  # the game moved: a new pad, by the app
    assert lane(app, f"/g/{gid}") is None
    moved = client.get(f"/g/{gid}")
    assert "Playing: hand 2." in moved.text and lane(app, f"/g/{gid}")[2] == moved.data


def test_a_signed_in_pad_never_reaches_a_reader_not_signed_in(store, app):
    gid = humans_game(store, preset("standard"))
    pad_cache.clear()
    player = app.test_client()
    sign_in(player, store, "p1@x.test")
    mine = player.get(f"/g/{gid}")
    assert mine.status_code == 200 and 'href="/home"' in mine.text
    assert lane(app, f"/g/{gid}") is None  # only the signed-in pad is cached: not served
    anyone = app.test_client().get(f"/g/{gid}")
    assert 'href="/home"' not in anyone.text and "Sign in" in anyone.text
    assert b'href="/home"' not in lane(app, f"/g/{gid}")[2]
