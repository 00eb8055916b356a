"""A turn mail's move links follow the door's rule for stale moves (pbem.play.stale): a move
made and taken back since the mail leaves its links working, as a reply to the mail does;
any other move since makes them stale (the table as it is now, and why). Through Flask's
client on the real app and database, the table page's own forms for the move and undo."""

from pbem.engine import preset
from pbem.signing import Signer
from tests.test_web import _turn_mail
from tests.test_web_table_acts import _form
from tests.web_helpers import (
    counts,
    csrf,
    game_state,
    humans_game,
    mail_links,
    move_forms,
    posted,
    tokens,
)


def _bid_on_the_table(client, tok, label):
    form = next(f for f in move_forms(client.get(f"/t/{tok}").text) if f["label"] == label)
    return posted(client, form["action"], form["data"])


def _start(store):
    gid = humans_game(store, preset("standard"))
    seat = game_state(store, gid).to_act()[0]
    return gid, seat, tokens(store, gid), dict(mail_links(_turn_mail(store, gid, seat).body_html))


def test_an_old_link_works_after_the_move_it_answers_was_taken_back(store, client):
    gid, seat, tok, links = _start(store)
    r = _bid_on_the_table(client, tok[seat], "Bid 3")
    action, data, _ = _form(r.text, "/undo")
    assert "Taken back" in posted(client, action, data).text
    assert game_state(store, gid).bids[seat] is None

    before = counts(store, gid)
    r = client.get(links["bid 4"])  # the confirm page, not the stale one
    assert r.status_code == 200 and "Confirm: Bid 4" in r.text and counts(store, gid) == before
    r = posted(client, links["bid 4"], {"csrf": csrf(client)}, to=f"/t/{tok[seat]}")
    assert "Done: Bid 4." in r.text
    st = game_state(store, gid)
    assert st.bids[seat] == 4 and st.seq == before[0] + 1  # one move, once


def test_an_old_link_is_stale_after_another_seats_move(store, client):
    gid, seat, tok, links = _start(store)
    _bid_on_the_table(client, tok[seat], "Bid 3")
    nxt = game_state(store, gid).to_act()[0]
    assert nxt != seat
    _bid_on_the_table(client, tok[nxt], "Bid 2")
    st = game_state(store, gid)
    before = counts(store, gid)

    r = client.get(links["bid 4"], follow_redirects=True)  # the table as it is now, and why
    assert "no longer works" in r.text and f"you saw move {st.seq - 2}" in r.text
    assert all(f["data"]["seq"] == str(st.seq) for f in move_forms(r.text))
    r = posted(client, links["bid 4"], {"csrf": csrf(client)})
    assert "moved on" in r.text and counts(store, gid) == before
    assert game_state(store, gid).bids[seat] == 3


def test_an_undo_the_player_had_not_seen_still_makes_the_link_stale(store, client):
    """A move made before the mail and taken back after it changed the table the mail
    showed: the other seat's link from that mail is stale."""
    gid, first, tok, _ = _start(store)
    r = _bid_on_the_table(client, tok[first], "Bid 3")
    nxt = game_state(store, gid).to_act()[0]
    links = dict(mail_links(_turn_mail(store, gid, nxt).body_html))
    action, data, _ = _form(r.text, "/undo")
    assert "Taken back" in posted(client, action, data).text
    r = client.get(links["bid 2"], follow_redirects=True)
    assert "no longer works" in r.text and "moved on" in r.text


def test_a_seats_link_never_moves_another_seat_and_an_altered_one_changes_nothing(
        app, store, client):
    gid, seat, tok, links = _start(store)
    r = _bid_on_the_table(client, tok[seat], "Bid 3")
    action, data, _ = _form(r.text, "/undo")
    posted(client, action, data)  # taken back: the mail's links work again
    nxt = game_state(store, gid).to_act()[0]
    before = counts(store, gid)
    good = links["bid 4"].removeprefix("/m/")
    signer = Signer(app.config["PBEM_KEYS"])
    d = signer.loads(good)
    other = signer.dumps(dict(d, s=(seat + 1) % 4))  # signed: another seat's link
    body, stamp, sig = good.rsplit(".", 2)
    swapped = f"{other.rsplit('.', 2)[0]}.{stamp}.{sig}"  # the seat changed, the sig kept
    flipped = f"{body}.{stamp}.{sig[:5]}{'A' if sig[5] != 'A' else 'B'}{sig[6:]}"
    for bad in (swapped, flipped):
        assert client.get(f"/m/{bad}").status_code == 400
        r = client.post(f"/m/{bad}", data={"csrf": csrf(client)})
        assert r.status_code == 400 and "not valid" in r.text, bad
    assert counts(store, gid) == before and game_state(store, gid).bids[seat] is None
    # a genuine link for another seat, made from this mail's move: not that seat's turn
    r = posted(client, f"/m/{other}", {"csrf": csrf(client)})
    assert "Not done" in r.text and counts(store, gid) == before
    r = posted(client, f"/m/{good}", {"csrf": csrf(client)})  # the genuine one: its own seat
    st = game_state(store, gid)
    assert st.bids[seat] == 4 and all(st.bids[x] is None for x in range(4) if x != seat)
    assert nxt == seat


def test_in_chromium_an_old_link_works_after_an_undo_and_not_after_another_move(tmp_path):
    """The same in a real browser, on the app served over HTTP: the link as a person opens
    it from the mail, the confirm button clicked."""
    from pbem.engine import legal
    from pbem.play import submit
    from pbem.store.states import Store
    from tests.browser_helpers import launch, serve

    with launch() as browser, serve(tmp_path) as (url, app):
        store = Store(f"sqlite:///{tmp_path / 'pbem.db'}")
        gid = humans_game(store, preset("standard"))
        st = game_state(store, gid)
        seat = st.to_act()[0]
        sign = Signer(app.config["PBEM_KEYS"]).dumps
        bid4, bid5 = (f"{url}/m/" + sign({"g": gid, "s": seat, "a": a, "q": st.seq})
                      for a in ({"type": "bid", "bid": 4}, {"type": "bid", "bid": 5}))
        assert {"type": "bid", "bid": 4} in legal(st, seat)
        submit(store, gid, seat, {"type": "bid", "bid": 3}, expect_seq=st.seq, source="web")
        submit(store, gid, seat, {"type": "undo"}, source="web")
        page = browser.new_page()
        page.goto(bid4)
        page.get_by_role("button", name="Confirm").click()
        page.wait_for_load_state()
        assert "Done: Bid 4." in page.content()
        assert game_state(store, gid).bids[seat] == 4
        nxt = game_state(store, gid).to_act()[0]
        submit(store, gid, nxt, {"type": "bid", "bid": 2},
               expect_seq=game_state(store, gid).seq, source="web")
        before = counts(store, gid)
        page.goto(bid5)  # the same mail's other link: the table has moved on
        assert "no longer works" in page.content() and "moved on" in page.content()
        assert counts(store, gid) == before and game_state(store, gid).bids[seat] == 4
        page.close()
