"""T4 on the web: the dummy shows on every seat's page only once the first card is led,
and its declarer plays it from the table's buttons at its turn (the same door as mail)."""

from pbem.engine import preset
from tests.mail_players import load_log
from tests.web_helpers import drive, game_state, humans_game, move_forms, tokens


def _dummy_line(html: str) -> str | None:
    return next((ln for ln in html.splitlines() if ln.startswith("<p>Dummy (played by")), None)


def test_the_dummy_is_shown_once_led_and_its_declarer_plays_it_from_the_page(store, client):
    gid = humans_game(store, preset("dummy-3"))
    toks = tokens(store, gid)
    st = drive(store, gid, lambda s: s.phase == "play")
    assert st.declarer is not None
    for tok in toks:  # bidding over, nothing led: no page shows the dummy
        assert _dummy_line(client.get(f"/t/{tok}").text) is None
        assert client.get(f"/api/t/{tok}").get_json()["dummy"]["hand"] is None
    st = drive(store, gid, lambda s: s.playing_hand == 3)  # the dummy's turn
    dummy = set(st.dummy_hand)
    for tok in toks:
        line = _dummy_line(client.get(f"/t/{tok}").text)
        assert line is not None and "its turn" in line
        assert set(client.get(f"/api/t/{tok}").get_json()["dummy"]["hand"]) == dummy
    page = client.get(f"/t/{toks[st.declarer]}").text
    forms = move_forms(page)
    cards = {f["data"]["card"] for f in forms if f["data"].get("type") == "play"}
    assert cards and cards <= dummy  # its buttons are the dummy's cards, not its own
    for seat, tok in enumerate(toks):
        if seat != st.declarer:
            assert not move_forms(client.get(f"/t/{tok}").text)
    form = next(f for f in forms if f["data"].get("type") == "play")
    r = client.post(form["action"], data=form["data"])
    assert r.status_code == 303
    after = game_state(store, gid)
    assert form["data"]["card"] not in after.dummy_hand
    _, events = load_log(store, gid)  # the next move is that card (a forced card may follow)
    made = next(e for e in events if e["seq"] == st.seq + 1)
    assert (made["type"], made["seat"], made["card"]) == ("play", st.declarer,
                                                          form["data"]["card"])
