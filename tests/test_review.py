"""Hand review and hints (issue 33): the double-dummy solver against brute force, the review
of a played hand, and that neither a review nor a hint shows a card of a hand in play (over
every preset), hints by mail and by the page, counted on the pad, off in a league unless its
organiser allows them."""

import itertools
import random

import pytest
from mail_helpers import running, text
from sqlmodel import select

from pbem import clock
from pbem.engine import PRESETS, advance, apply, choose, make_deal, new_game, preset, view
from pbem.engine.par import Solver, supported
from pbem.engine.review import hard_card, review
from pbem.engine.tricks import breaks_spades, playable_cards, table_for
from pbem.league.manage import OPERATOR, LeagueError, set_hints
from pbem.organise.seasons import start_season
from pbem.store import hints, reviews
from pbem.store.models import HandReview, Seat
from tests.league_helpers import fixtures, league
from tests.test_web import ROUTES
from tests.web_helpers import csrf, drive, humans_game, posted, tokens

_IDS = itertools.count()
HINTED = "the hard robot would play "  # the answer's words, before the card


# -- the solver --------------------------------------------------------------------------


def _brute(rules, table, ours, hands, trick, turn, broken, done) -> int:
    """Every card of every seat, no pruning: the side's best against the others' best."""
    if not trick and not hands[turn]:
        return 0
    got = []
    for c in dict.fromkeys(playable_cards(rules, table, list(hands[turn]), list(trick), broken,
                                          done, None)):
        hand = list(hands[turn])
        hand.remove(c)
        after = hands[:turn] + (tuple(hand),) + hands[turn + 1:]
        t = trick + ((turn, c),)
        b = broken or breaks_spades(table, t)
        if len(t) < rules.players:
            got.append(_brute(rules, table, ours, after, t, (turn + 1) % rules.players, b,
                              done))
            continue
        at = table.taker(list(t))
        lead = t[0][0] if at is None else t[at][0]
        gain = 0 if at is None else int(lead in ours)
        got.append(gain + _brute(rules, table, ours, after, (), lead, b, done + 1))
    return max(got) if turn in ours else min(got)


def _endgame(rules, rng):
    """A random position near a hand's end, on lead or with some cards on the trick."""
    table = table_for(rules)
    deck = list(table.deck)
    rng.shuffle(deck)
    n = rules.players
    k = rng.randint(1, 3 if n <= 4 else 2)
    hands = [deck[i * k:(i + 1) * k] for i in range(n)]
    turn, trick = rng.randrange(n), []
    for _ in range(rng.randrange(n)):  # some seats have played to the trick already
        seat = (turn + len(trick)) % n
        card = rng.choice(playable_cards(rules, table, hands[seat], trick, True,
                                         rules.hand_size - k, None))
        hands[seat].remove(card)
        trick.append((seat, card))
    return tuple(map(tuple, hands)), tuple(trick), (turn + len(trick)) % n, \
        rng.random() < 0.5, rules.hand_size - k


CASES = [preset(p) for p in PRESETS if supported(preset(p))] + [
    preset("six-handed").with_options(identical="cancel"),
    preset("standard").with_options(spade_lead="any")]


@pytest.mark.parametrize("rules", CASES, ids=lambda r: f"{r.preset}-{r.identical}")
def test_the_solver_agrees_with_brute_force_on_small_endgames(rules):
    rng = random.Random(rules.preset)
    table = table_for(rules)
    for _ in range(30):
        hands, trick, turn, broken, done = _endgame(rules, rng)
        side = rules.sides[rng.randrange(len(rules.sides))]
        solver = Solver(rules, table, side)
        want = _brute(rules, table, frozenset(side), hands, trick, turn, broken, done)
        assert solver.value(hands, trick, turn, broken, done) == want
        card = rng.choice(playable_cards(rules, table, list(hands[turn]), list(trick), broken,
                                         done, None))
        after = solver.after(hands, trick, turn, broken, done, card)
        assert after is not None and after <= want or turn not in side
        assert after is not None and (after >= want or turn in side)


def test_the_cap_answers_none_rather_than_search_on():
    rules = preset("standard")
    rng = random.Random(5)
    deck = list(table_for(rules).deck)
    rng.shuffle(deck)
    hands = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    solver = Solver(rules, table_for(rules), rules.sides[0], cap=500)
    assert solver.value(hands, (), 1, False, 0) is None
    assert solver.nodes == 501


def test_a_dummy_is_not_reviewed():
    assert not supported(preset("dummy-3"))


# -- the review of a played hand -------------------------------------------------------------


def _robot_game(rules, stop, seed=1, worse=()):
    """A robot game played to `stop(st)`; the seats in `worse` play their lowest card."""
    st, log, rng = new_game(rules, 0), [], random.Random(seed)
    for _ in range(5000):
        if stop(st) or st.phase == "over":
            return st, log
        if st.phase == "deal":
            events = [make_deal(st, rng)]
        else:
            seat = st.to_act()[0]
            action = choose(view(st, seat), seed, rules)
            if seat in worse and action["type"] == "play":
                low = min(st.playable(seat), key=st.table.power.__getitem__)
                action = {"type": "play", "card": low}
            events = apply(st, seat, action)
        for ev in events:
            advance(st, ev)
            log.append(ev)
    raise AssertionError("the game did not get there")


def test_the_review_of_a_played_hand():
    rules = preset("standard")
    st, log = _robot_game(rules, lambda st: st.hand_no >= 1, worse=(1, 3))
    got = review(rules, log, 0, 0, seed=3)
    assert got is not None and got["hand"] == 1 and got["supported"]
    par = got["par"]
    assert par is not None
    left = rules.hand_size - par["from_trick"] + 1
    sides = par["sides"]
    assert sum(x["par"] for x in sides) == left == sum(x["took"] for x in sides)
    assert any(x["par"] >= x["took"] for x in sides)
    assert sides[1]["took"] <= sides[1]["par"] + left  # (bounds, not a result)
    dealt = {c for hand in st.last_deal["hands"] for c in hand}
    for worst in got["seats"]:
        if worst is not None:
            assert worst["cost"] > 0 and worst["card"] in dealt and worst["robot"] in dealt
            assert worst["card"] != worst["robot"]
    assert any(got["seats"][s] for s in (1, 3))  # the lowest card each time costs something


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_no_review_of_a_hand_in_play_and_hints_see_only_the_seats_view(name):
    """Over every preset: a hand still in play has no review; a finished one names only its
    own cards; a hint is the same whatever the other seats hold."""
    rules = preset(name)
    st, log = _robot_game(rules, lambda st: st.hand_no == 1 and st.phase == "play"
                          and len(st.tricks) >= 1)
    assert review(rules, log, 0, 1) is None  # hand 2 is in play
    done = review(rules, log, 0, 0)
    assert done is not None and done["hand"] == 1
    first = st.history[0]
    assert first["hand"] == 1
    seat = st.turn
    seen = view(st, seat)
    card = hard_card(seen, 7, rules)
    assert card in st.hand_of(seat)
    others = [s for s in range(st.n) if s != seat]
    if rules.dummy or len(others) < 2:
        return  # (a dummy's hand is seen by all; two-handed: one other hand, nothing to swap)
    other = st.snapshot()  # two other seats swap a card: this seat's view and hint stay
    a, b = others[:2]
    other.hands[a][0], other.hands[b][0] = other.hands[b][0], other.hands[a][0]
    assert view(other, seat) == seen
    assert hard_card(view(other, seat), 7, rules) == card


# -- hints and reviews at the table ----------------------------------------------------------


def _at_play(store, gid, seat=None):
    return drive(store, gid, lambda st: st.phase == "play"
                 and (seat is None or st.turn == seat))


def _seat_rows(store, gid) -> list[Seat]:
    with store.session() as s:
        return list(s.exec(select(Seat).where(Seat.game_id == gid).order_by(Seat.seat)))


def test_a_hint_on_the_page_is_the_seats_alone_and_counted(app, store, client):
    gid = humans_game(store, preset("standard"))
    st = _at_play(store, gid)
    toks = tokens(store, gid)
    me, other = st.turn, (st.turn + 1) % 4
    url = f"/t/{toks[me]}/hint"
    assert client.post(url, data={}).status_code == 400  # no CSRF
    assert client.post(f"/t/{'x' * 20}/hint", data={"csrf": csrf(client)}).status_code == 404
    page = client.get(f"/t/{toks[me]}").text
    assert "/hint" in page and f"/t/{toks[other]}/hint" not in page
    r = posted(client, f"/t/{toks[other]}/hint", {"csrf": csrf(client)})
    assert "your turn to play a card" in r.text and HINTED not in r.text
    r = posted(client, url, {"csrf": csrf(client)})
    assert "Hint: " + HINTED in r.text
    assert [x.hints for x in _seat_rows(store, gid)] == [int(s == me) for s in range(4)]
    for s in range(4):  # every seat's pad counts it; no other page says the card
        page = client.get(f"/t/{toks[s]}").text
        assert "hints: 1" in page
        assert HINTED not in page
    assert "/hint" not in client.get(f"/t/{toks[other]}").text  # no button off turn


def test_every_route_of_hints_is_tested_here():
    assert ROUTES["/t/<token>/hint"] in globals()
    assert ROUTES["/o/<admin_token>/hints"] == \
        "test_the_organiser_page_allows_hints_and_turns_them_off"  # test_web_leagues


def test_hints_are_off_in_a_league_unless_its_organiser_allows_them(app, store, client):
    lid = league(store, players=4)
    start_season(store, lid, OPERATOR)
    gid = fixtures(store, lid)[0].game_id
    st = _at_play(store, gid)
    with pytest.raises(hints.HintRefused, match="hints are off in this league"):
        hints.hint(store, gid, st.turn)
    with pytest.raises(LeagueError, match="only the organiser"):
        set_hints(store, lid, 999_999, True)
    from pbem.store.models import League
    with store.session() as s:
        token = s.get(League, lid).admin_token
    r = posted(client, f"/o/{token}/hints", {"hints": "on", "csrf": csrf(client)})
    assert "Hints are allowed in this league" in r.text
    assert hints.hint(store, gid, st.turn) in st.hand_of(st.turn)
    r = posted(client, f"/o/{token}/hints", {"hints": "off", "csrf": csrf(client)})
    assert "Hints are off" in r.text
    with pytest.raises(hints.HintRefused):
        hints.hint(store, gid, st.turn)
    assert sum(x.hints for x in _seat_rows(store, gid)) == 1


@pytest.fixture
def env(store, monkeypatch, tmp_path):
    with running(store, monkeypatch, tmp_path) as e:
        yield e


def test_a_hint_by_mail_answers_the_seat_alone(env):
    store = env.store
    gid = humans_game(store, preset("standard"))
    st = _at_play(store, gid)
    env.replies()
    me = st.turn
    msg = env.mail(env.address(gid, me), "hint", frm=f"p{me}@x.test",
                   mid=f"<hint{next(_IDS)}@x.test>")
    assert env.send(msg)[0] == 250
    mails = env.replies()
    assert [str(m["To"]) for m in mails] == [f"p{me}@x.test"]
    assert "hint: " + HINTED in text(mails[0])
    other = (me + 1) % 4
    msg = env.mail(env.address(gid, other), "hint", frm=f"p{other}@x.test",
                   mid=f"<hint{next(_IDS)}@x.test>")
    env.send(msg)
    [refused] = env.replies()
    assert "your turn to play a card" in text(refused) and HINTED not in text(refused)
    assert [x.hints for x in _seat_rows(store, gid)][me] == 1


def test_the_clock_reviews_finished_hands_and_the_pad_shows_them(app, store, client):
    gid = humans_game(store, preset("standard"))
    drive(store, gid, lambda st: st.hand_no == 0 and st.phase == "play" and len(st.tricks) >= 2)
    assert clock.review_tick(store) == 0  # no hand is over: nothing to review
    st = drive(store, gid, lambda st: st.hand_no >= 1 and st.phase == "play")
    assert reviews.pending(store) == [(gid, 1)]  # marked by the write that ended the hand
    assert clock.review_tick(store) == 1
    assert reviews.pending(store) == []
    assert clock.review_tick(store) == 0  # once
    with store.session() as s:
        [row] = s.exec(select(HandReview).where(HandReview.game_id == gid)).all()
    assert row.hand == 1 and row.data["hand"] == 1 and row.data["par"] is not None
    for tok in tokens(store, gid):
        page = client.get(f"/t/{tok}").text
        assert "Review of the last hands" in page and "par " in page
    assert st.hand_no == 1


def test_the_bench_runs(capsys):
    from bench import par as bench
    assert bench.main(["--deals", "3", "--tricks", "4"]) == 0
    out = capsys.readouterr().out
    assert "3 deals of 4 tricks" in out and "0 over the cap" in out and "p99" in out
