"""Orders given ahead (issue 14): each form read, kept secret for its seat, applied by the
one door the moment its condition holds (`"auto": "order"` in the log), dropped with a
mail when it can no longer be kept or its hand ends; by mail, bad orders keep nothing."""

import re

import pytest
from helpers import deal, do
from sqlmodel import select

from pbem import orders
from pbem.engine import new_game, preset
from pbem.engine.orders import next_card, read
from pbem.gamelog import export as write_log
from pbem.gamelog import replay_log
from pbem.play import import_log, start, submit
from pbem.store.games import export
from pbem.store.models import Outbox, SeatOrder
from tests.test_autoplay import player_prefs
from tests.test_no_stall import HANDS

STD = preset("standard")
SEATS = ["a@x.test", "b@x.test", "c@x.test", "d@x.test"]


@pytest.mark.parametrize("line, want", [
    ("play QH then KH", [{"kind": "play", "card": "QH"}, {"kind": "play", "card": "KH"}]),
    ("Q♥ then king of hearts then 2h", [{"kind": "play", "card": c} for c in ("QH", "KH", "2H")]),
    ("lead AS next", [{"kind": "lead", "card": "AS"}]),
    ("if hearts are led play 2H", [{"kind": "follow", "suit": "H", "card": "2H"}]),
    ("If clubs led, play ten of clubs", [{"kind": "follow", "suit": "C", "card": "TC"}]),
    ("follow low in clubs", [{"kind": "low", "suit": "C"}]),
    ("play QH", None), ("bid 4", None), ("clear", None),
])
def test_each_form_is_read(line, want):
    assert read(line) == want


@pytest.mark.parametrize("line", ["lead ZZ next", "if wands are led play 2H",
                                  "play QH then the moon"])
def test_a_badly_written_order_is_an_error(line):
    with pytest.raises(ValueError):
        read(line)


def position():
    st = new_game(STD, 3)
    deal(st, HANDS)
    while st.phase == "bid":
        seat = st.to_act()[0]
        do(st, seat, {"type": "bid", "bid": (4, 3, 1, 1)[seat]})
    return st  # seat 0 leads: its hearts AH..6H, its spades AS..JS (unbroken)


def test_which_order_acts_and_which_cannot_be_kept():
    st = position()
    assert next_card(st, 1, [{"kind": "play", "card": "5H"}]) == (-1, None)  # not its turn
    assert next_card(st, 0, [{"kind": "follow", "suit": "H", "card": "AH"},
                             {"kind": "lead", "card": "KH"}]) == (1, "KH")
    assert next_card(st, 0, [{"kind": "lead", "card": "AS"}]) == (0, None)  # spades unbroken
    do(st, 0, "AH")
    assert next_card(st, 1, [{"kind": "lead", "card": "5H"}]) == (-1, None)  # it follows
    assert next_card(st, 1, [{"kind": "low", "suit": "H"}]) == (0, "2H")
    assert next_card(st, 1, [{"kind": "follow", "suit": "D", "card": "5H"},
                             {"kind": "play", "card": "4H"}]) == (1, "4H")


# -- through the door ------------------------------------------------------------------------


def dealt(store):
    """HANDS dealt, nobody has bid: seat 0 bids first, then 1, 2, 3. HANDS is settled from
    its first card (seat 0 takes 8 tricks and seat 1 5 whatever is played:
    pbem.engine.settled), so seat 3's player (13 clubs: never an only card before the last)
    has `auto off`, and the table is asked for its cards, orders and all."""
    log = write_log(STD, [{"seq": 1, "type": "deal", "dealer": 3, "hands": HANDS}], SEATS,
                    first_dealer=3)
    gid = import_log(store, log)
    player_prefs(store, SEATS[3], auto="off")
    start(store, gid)
    return gid


@pytest.fixture
def gid(store):
    gid = dealt(store)
    for seat, bid in ((0, 4), (1, 3), (2, 1), (3, 1)):
        submit(store, gid, seat, {"type": "bid", "bid": bid})
    return gid


def state(store, gid):
    return replay_log(export(store, gid))


def rows(store, gid):
    with store.session() as s:
        return list(s.exec(select(SeatOrder).where(SeatOrder.game_id == gid)
                           .order_by(SeatOrder.id)).all())


def test_an_order_plays_the_moment_its_suit_is_led(store, gid):
    orders.give(store, gid, 1, "if hearts are led play 5H", state(store, gid))
    result = submit(store, gid, 0, {"type": "play", "card": "AH"})
    made = [ev for ev in result.events if ev.get("auto") == "order"]
    assert made == [{"seq": made[0]["seq"], "type": "play", "seat": 1, "card": "5H",
                     "auto": "order"}]
    assert [r.state for r in rows(store, gid)] == ["done"]
    assert state(store, gid).trick[:2] == [(0, "AH"), (1, "5H")]


def test_plays_ahead_go_in_order_over_tricks(store, gid):
    orders.give(store, gid, 0, "play KH then QH", state(store, gid))
    from pbem.play import settle

    settle(store, gid)  # it is seat 0's lead: the KH goes at once
    st = state(store, gid)
    assert st.trick == [(0, "KH")]
    for seat, card in ((1, "2H"), (2, "2D"), (3, "2C")):
        submit(store, gid, seat, {"type": "play", "card": card})
    st = state(store, gid)  # seat 0 won and led again: the QH, by the order
    assert st.tricks[-1][1] == 0 and st.trick == [(0, "QH")]
    assert [r.state for r in rows(store, gid)] == ["done", "done"]


def test_an_order_that_cannot_be_kept_is_dropped_and_its_player_told(store, gid):
    orders.give(store, gid, 0, "lead AS next", state(store, gid))
    from pbem.play import settle

    settle(store, gid)  # spades are not broken: the lead cannot be the AS
    assert [r.state for r in rows(store, gid)] == ["dropped"]
    assert state(store, gid).trick == []  # nothing was played for seat 0
    with store.session() as s:
        [told] = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("order:"))).all()
    assert told.to_addr == "a@x.test" and "lead AS next" in told.body_text


def test_orders_are_refused_for_cards_not_held_and_beyond_a_hand(store, gid):
    st = state(store, gid)
    with pytest.raises(ValueError, match="not in your hand"):
        orders.give(store, gid, 1, "lead AH next", st)
    orders.give(store, gid, 2, "follow low in diamonds", st)
    with pytest.raises(ValueError, match="at most 13"):
        orders.give(store, gid, 2, "play " + " then ".join(st.hands[2]), st)
    assert len(rows(store, gid)) == 1


def test_a_standing_order_keeps_acting_until_the_hand_ends(store, gid):
    orders.give(store, gid, 2, "follow low in hearts", state(store, gid))  # seat 2: void
    orders.give(store, gid, 1, "follow low in hearts", state(store, gid))
    submit(store, gid, 0, {"type": "play", "card": "AH"})
    st = state(store, gid)
    assert st.trick[1] == (1, "2H") and st.turn == 2  # seat 2 holds no heart: dropped
    assert {(r.seat, r.state) for r in rows(store, gid)} == {(1, "pending"), (2, "dropped")}


def test_a_new_player_of_the_seat_does_not_inherit_the_leavers_orders(store, gid):
    from pbem.play import hand_over

    orders.give(store, gid, 1, "if hearts are led play 5H", state(store, gid))
    hand_over(store, gid, 1, "zed@x.test")
    submit(store, gid, 0, {"type": "play", "card": "AH"})
    assert [r.state for r in rows(store, gid)] == ["dropped"]
    assert state(store, gid).trick == [(0, "AH")]  # the new player decides seat 1's card


def play_out_hand(store, gid):
    """Every seat plays (as a robot would) until the first hand is over."""
    from pbem.engine import choose, view

    for _ in range(60):
        st = state(store, gid)
        if st.hand_no == 1:
            return
        seat = st.to_act()[0]
        submit(store, gid, seat, choose(view(st, seat), seed=st.seq, rules=st.rules),
               expect_seq=st.seq)


def test_orders_left_when_the_hand_ends_are_dropped_with_a_word(store, gid):
    orders.give(store, gid, 2, "lead 2D next", state(store, gid))  # seat 2 never leads here
    play_out_hand(store, gid)
    assert [r.state for r in rows(store, gid)] == ["dropped"]
    with store.session() as s:
        [told] = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("order:"))).all()
    assert told.to_addr == "c@x.test" and "its hand is over" in told.body_text


def test_a_standing_order_that_lasted_its_hand_ends_without_a_mail(store, gid):
    orders.give(store, gid, 1, "cover in hearts", state(store, gid))
    orders.give(store, gid, 3, "duck in hearts", state(store, gid))  # seat 3: void, dropped
    play_out_hand(store, gid)
    assert [(r.seat, r.state) for r in rows(store, gid)] == [(1, "done"), (3, "dropped")]
    with store.session() as s:
        told = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("order:"))).all()
    assert [m.to_addr for m in told] == ["d@x.test"]  # only the order that could not be kept


# -- by mail ---------------------------------------------------------------------------------


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    from mail_helpers import running

    with running(store, monkeypatch, tmp_path) as e:
        yield e


def test_orders_by_mail_are_kept_listed_cleared_and_bad_ones_keep_nothing(env, gid):
    from mail_helpers import headline, text

    bob = env.address(gid, seat=1)
    env.replies()
    msg = env.mail(bob, "if hearts are led play 5H\nfollow low in clubs\norders",
                   frm="b@x.test", mid="<o1@x.test>")
    assert env.send(msg)[0] == 250
    [answer] = env.replies()
    body = text(answer)
    assert "if hearts are led play 5H: 1 kept" in body
    assert "orders: if hearts are led play 5H; follow low in clubs" in body
    before = [(r.id, r.state) for r in rows(env.store, gid)]
    bad = env.mail(bob, "lead ZZ next", frm="b@x.test", mid="<o2@x.test>")
    assert env.send(bad)[0] == 250
    assert "not done" in headline(env.replies()[0])
    assert [(r.id, r.state) for r in rows(env.store, gid)] == before
    clear = env.mail(bob, "clear orders", frm="b@x.test", mid="<o3@x.test>")
    env.send(clear)
    assert "2 dropped" in text(env.replies()[0])
    assert {r.state for r in rows(env.store, gid)} == {"dropped"}


def test_the_table_page_shows_and_edits_the_seats_own_orders_only(store, gid, tmp_path,
                                                                     monkeypatch):
    from tests.web_helpers import make_app, order_form, tokens

    client = make_app(store, tmp_path, monkeypatch).test_client()
    toks = tokens(store, gid)
    r = client.post(f"/t/{toks[1]}/orders", data=dict(order_form(client, toks[1]),
                                                       order="if hearts are led play 5H"),
                    follow_redirects=True)
    assert r.history and "1 order kept" in r.text
    assert "if hearts are led play 5H" in client.get(f"/t/{toks[1]}").text
    for other in (0, 2, 3):  # the others never see it
        assert "play 5H" not in client.get(f"/t/{toks[other]}").text
    bad = client.post(f"/t/{toks[1]}/orders", data=dict(order_form(client, toks[1]),
                                                         order="lead AH next"),
                      follow_redirects=True)
    assert bad.history and "No order" in bad.text and 'value="lead AH next"' in bad.text
    assert len(rows(store, gid)) == 1
    r = client.post(f"/t/{toks[1]}/orders", data=dict(order_form(client, toks[1]), clear="1"),
                    follow_redirects=True)
    assert "1 order dropped" in r.text and [x.state for x in rows(store, gid)] == ["dropped"]


def test_an_order_form_sent_twice_keeps_its_orders_once(store, gid, tmp_path, monkeypatch):
    """A double click: the same page's form twice. Its signed `form` field is the orders'
    ref, so the second finds them kept; the same form with another order keeps nothing."""
    from tests.web_helpers import make_app, order_form, tokens

    client = make_app(store, tmp_path, monkeypatch).test_client()
    tok = tokens(store, gid)[1]
    form = dict(order_form(client, tok), order="if hearts are led play 5H")
    for _ in range(2):
        r = client.post(f"/t/{tok}/orders", data=form, follow_redirects=True)
        assert "1 order kept" in r.text
    assert [(x.text, x.state) for x in rows(store, gid)] == \
        [("if hearts are led play 5H", "pending")]
    r = client.post(f"/t/{tok}/orders", data=dict(form, order="cover"), follow_redirects=True)
    assert "Nothing more was kept: this form was sent already, with another order" in r.text
    assert len(rows(store, gid)) == 1
    r = client.post(f"/t/{tok}/orders", data=dict(order_form(client, tok), order="cover"),
                    follow_redirects=True)  # a new page's form: a new order
    assert "1 order kept" in r.text and len(rows(store, gid)) == 2


def test_a_stale_or_forged_order_form_changes_nothing(store, gid, tmp_path, monkeypatch):
    from pbem.signing import ORDER_FORM, Signer
    from tests.web_helpers import make_app, order_form, tokens

    app = make_app(store, tmp_path, monkeypatch)
    client = app.test_client()
    toks = tokens(store, gid)
    good = order_form(client, toks[1])
    sign = Signer(app.config["PBEM_KEYS"], ORDER_FORM).dumps
    hand = state(store, gid).hand_no
    old = "this form is out of date"
    for form, why in [(None, old), ("garbage", old), (good["form"][:-2] + "xx", old),
                      (Signer(["not-our-key"], ORDER_FORM).dumps({"g": gid, "s": 1, "h": hand}),
                       old),
                      (Signer(app.config["PBEM_KEYS"]).dumps({"g": gid, "s": 1, "h": hand}),
                       old),  # signed for another purpose (a move link's)
                      (order_form(client, toks[2])["form"], "this form is for another seat"),
                      (sign({"g": gid, "s": 1, "h": hand - 1}),
                       "this form was for an earlier hand")]:
        data = {"csrf": good["csrf"], "order": "cover", "clear": ""}
        if form is not None:
            data["form"] = form
        r = client.post(f"/t/{toks[1]}/orders", data=data, follow_redirects=True)
        assert f"Nothing was changed: {why}" in r.text, form
        r = client.post(f"/t/{toks[1]}/orders", data=dict(data, clear="1"),
                        follow_redirects=True)
        assert f"Nothing was changed: {why}" in r.text, form
    assert rows(store, gid) == []
    r = client.post(f"/t/{toks[1]}/orders", data=dict(good, order="cover"),
                    follow_redirects=True)
    assert "1 order kept" in r.text and len(rows(store, gid)) == 1


def test_the_turn_mail_lists_the_seats_own_pending_orders_and_no_one_elses(store, gid):
    orders.give(store, gid, 1, "lead 5H next", state(store, gid))  # not while following
    submit(store, gid, 0, {"type": "play", "card": "AH"})
    with store.session() as s:
        mails = s.exec(select(Outbox).where(Outbox.dedupe_key.startswith("turn:"))).all()
    [mine] = [m for m in mails if m.to_addr == "b@x.test" and "lead 5H next" in m.body_text]
    assert "lead 5H next" in mine.body_html
    with store.session() as s:
        others = s.exec(select(Outbox).where(Outbox.to_addr != "b@x.test")).all()
    assert not any("5H next" in (m.body_text + (m.body_html or "")) for m in others)


# -- bids ahead (tests/test_orders_ahead.py has the rest) ------------------------------------


@pytest.fixture
def bidding(store):
    return dealt(store)


def test_a_bid_by_mail_before_ones_turn_is_kept_and_made_at_it(env, bidding):
    from mail_helpers import headline, text

    carol = env.address(bidding, seat=2)
    env.replies()
    env.send(env.mail(carol, "bid 4", frm="c@x.test", mid="<b1@x.test>"))
    [answer] = env.replies()
    assert "bid 4: kept, made at your turn" in text(answer)
    assert "bid 4 at your turn" in headline(answer)
    assert state(env.store, bidding).bids == [None] * 4  # nothing bid yet
    blind = env.mail(carol, "blind 6", frm="c@x.test", mid="<b2@x.test>")
    env.send(blind)
    assert "blind bid cannot be given ahead" in text(env.replies()[0])
    submit(env.store, bidding, 0, {"type": "bid", "bid": 3})
    result = submit(env.store, bidding, 1, {"type": "bid", "bid": 3})
    assert {"seq": 4, "type": "bid", "seat": 2, "bid": 4, "auto": "order"} in result.events
    assert state(env.store, bidding).bids == [3, 3, 4, None]


def test_bid_ahead_buttons_on_the_page_keep_a_bid_only_for_the_seat(store, bidding, tmp_path,
                                                                    monkeypatch):
    from tests.web_helpers import make_app, order_form, tokens

    client = make_app(store, tmp_path, monkeypatch).test_client()
    toks = tokens(store, bidding)
    assert "Your bid ahead" not in client.get(f"/t/{toks[0]}").text  # its turn: bid now
    page = client.get(f"/t/{toks[2]}").text
    assert "Your bid ahead" in page and 'name="bid" value="nil"' in page
    def pages():  # each page's order form has its own signed `form` field
        return {s: re.sub(r'name="form" value="[^"]+"', "", client.get(f"/t/{toks[s]}").text)
                for s in (0, 1, 3)}

    before = pages()
    no_guard = client.post(f"/t/{toks[2]}/orders", data={"bid": "5"})
    assert no_guard.status_code == 400 and rows(store, bidding) == []
    bad = client.post(f"/t/{toks[2]}/orders", data=dict(order_form(client, toks[2]), bid="99"),
                      follow_redirects=True)
    assert bad.history and "No bid ahead" in bad.text
    form = dict(order_form(client, toks[2]), bid="5")
    for _ in range(2):  # a double click keeps it once
        r = client.post(f"/t/{toks[2]}/orders", data=form, follow_redirects=True)
        assert r.history and "Kept: bid 5, made at your turn" in r.text
    assert [x.text for x in rows(store, bidding)] == ["bid 5"]
    r = client.post(f"/t/{toks[2]}/orders", data=dict(form, bid="6"), follow_redirects=True)
    assert "this form was sent already, with another bid" in r.text
    assert [(x.text, x.state) for x in rows(store, bidding)] == [("bid 5", "pending")]
    assert "<li>bid 5</li>" in client.get(f"/t/{toks[2]}").text
    assert pages() == before  # unseen
    assert "Your bid ahead" not in client.get(f"/t/{toks[0]}").text
    for seat in (0, 1):
        submit(store, bidding, seat, {"type": "bid", "bid": 2})
    assert state(store, bidding).bids[2] == 5
    assert "Your bid ahead" not in client.get(f"/t/{toks[2]}").text  # made: its section goes


def test_no_other_seats_mail_shows_a_bid_ahead(store, bidding):
    for seat, bid in ((2, 7), (3, 6)):
        orders.give_bid(store, bidding, seat, {"type": "bid", "bid": bid}, f"bid {bid}",
                        state(store, bidding))
    submit(store, bidding, 0, {"type": "bid", "bid": 3})  # seat 1's turn mail
    with store.session() as s:
        mails = s.exec(select(Outbox)).all()
    assert [m.to_addr for m in mails if m.dedupe_key.startswith("turn:")] == ["b@x.test"]
    assert not any("Your orders" in m.body_text + (m.body_html or "") for m in mails)


def _answer_to(mails, mid):
    """The answer to one mail (a Maildir lists its messages in no order)."""
    return next(m for m in mails if m["In-Reply-To"] == mid)


def test_a_seat_that_may_bid_blind_looks_then_bids_ahead_in_one_mail(env):
    from mail_helpers import text

    from pbem.engine import Rules

    rules = Rules(preset="standard", blind_nil_behind=0)  # blind nil open: nobody has looked
    log = write_log(rules, [{"seq": 1, "type": "deal", "dealer": 3, "hands": HANDS}], SEATS,
                    first_dealer=3)
    gid = import_log(env.store, log)
    start(env.store, gid)
    carol = env.address(gid, seat=2)
    env.replies()
    env.send(env.mail(carol, "bid 4", frm="c@x.test", mid="<l1@x.test>"))
    assert "look at your cards first" in text(_answer_to(env.replies(), "<l1@x.test>"))
    assert rows(env.store, gid) == []
    env.send(env.mail(carol, "look\nbid 4", frm="c@x.test", mid="<l2@x.test>"))
    mails = env.replies()
    assert "bid 4: kept, made at your turn" in text(_answer_to(mails, "<l2@x.test>"))
    assert [m["To"] for m in mails] == ["c@x.test"]  # her look asks nothing new of the bidder
    assert [r.spec for r in rows(env.store, gid)] == [{"kind": "bid", "bid": 4}]
