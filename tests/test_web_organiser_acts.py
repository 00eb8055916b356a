"""The organiser's page's rulings and care of tables (issue 16), through the Flask client:
the forms are on the page, each action does what it says, and every refusal (no CSRF
token, another league's key, a bad number, a game not of the league) says why and changes
nothing."""

import html

from sqlmodel import select

from pbem.league.manage import OPERATOR
from pbem.league.seasons import start_season
from pbem.store.models import Move, Outbox
from tests.league_helpers import fixtures, league, play_out, state
from tests.test_web_leagues import post, refused, state_of, the_league
from tests.web_helpers import Forms

ACTS = ("rule", "more", "robot", "remind", "message")


def test_the_organisers_forms_and_their_refusals(app, store, client):
    lid = league(store, players=8)
    start_season(store, lid, OPERATOR)
    first, second = [f.game_id for f in fixtures(store, lid)][:2]
    play_out(store, first)
    lg = the_league(store, lid)
    o = f"/o/{lg.admin_token}"
    other = the_league(store, league(store, players=4))
    forms = Forms(client.get(o).text).forms
    for act in ACTS:
        assert any(f["action"] == f"{o}/{act}" for f in forms), act

    before = state_of(store)
    for act in ACTS:
        assert client.post(f"{o}/{act}", data={"game": second}).status_code == 400  # no CSRF
        assert post(client, f"/o/nosuchtoken/{act}", game=str(second)).status_code == 404
    assert state_of(store) == before
    refused(client, f"/o/{other.admin_token}/more", "is not a game of", store,
            game=str(second), hours="5")
    refused(client, f"{o}/more", "the hours: a whole number up to 1440", store,
            game=str(second), hours="99999")
    refused(client, f"{o}/more", "the hours: a whole number", store, game=str(second),
            hours="-3")
    refused(client, f"{o}/robot", "the game: a whole number", store, game="x")
    refused(client, f"{o}/remind", "is not a game of", store, game="77777")
    refused(client, f"{o}/rule", "is not over", store, game=str(second), result="replay",
            reason="why")
    refused(client, f"{o}/rule", "give the reason", store, game=str(first), result="replay",
            reason=" ")
    refused(client, f"{o}/rule", "side 3 is not a side", store, game=str(first),
            result="win", side="3", reason="x")
    refused(client, f"{o}/message", "a message has a subject", store, subject="",
            text="hello")

    r = post(client, f"{o}/rule", game=str(first), result="adjust", points="+20, -20",
             reason="a revoke <b>missed</b>")
    assert r.status_code == 200 and "side 1 +20, side 2 -20" in html.unescape(r.text)
    assert "<b>missed</b>" not in r.text  # the reason is the organiser's words, escaped
    pad = client.get(f"/g/{first}").text
    assert "The organiser's ruling: scores adjusted by side 1 +20" in pad
    season_page = html.unescape(client.get(f"/l/{lid}").text)
    assert "a revoke <b>missed</b>" in season_page
    seq = state(store, second).seq
    assert "the robot made the move" in post(client, f"{o}/robot", game=str(second)).text
    with store.session() as s:
        assert s.exec(select(Move.source).where(Move.game_id == second,
                                                Move.seq == seq + 1)).one() == "organiser"
    assert "reminded to move" in post(client, f"{o}/remind", game=str(second)).text
    assert "24 more hours" in post(client, f"{o}/more", game=str(second), hours="24").text
    r = post(client, f"{o}/message", season="1", subject="Hello", text="Round 2 soon.")
    assert "went to 8 player(s)" in r.text
    with store.session() as s:
        assert len(s.exec(select(Outbox).where(
            Outbox.dedupe_key.like(f"message:{lid}:%"))).all()) == 9
