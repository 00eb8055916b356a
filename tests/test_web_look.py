"""The pure parts of the pages' look: the seats around the drawn table and the score chart
(the browser tests, tests/test_browser_look.py, see them rendered)."""

import random
import re
from types import SimpleNamespace

import pytest

from pbem.engine import advance, apply, choose, make_deal, new_game, preset, view
from pbem.web.chart import score_svg, step_for
from pbem.web.view import PLACES, seat_view


def playing(name: str, moves: int, seed: int = 3):
    """A game of preset `name` after `moves` robot moves from the deal."""
    st = new_game(preset(name), 0)
    advance(st, make_deal(st, random.Random(seed)))
    for _ in range(moves):
        seat = st.to_act()[0]
        for ev in apply(st, seat, choose(view(st, seat), seed, rules=st.rules)):
            advance(st, ev)
    return SimpleNamespace(state=st, names=[f"n{i}" for i in range(st.n)])


@pytest.mark.parametrize("name", ["two-handed", "cutthroat-3", "standard", "six-handed"])
def test_every_seat_has_a_place_from_the_viewers_chair(name):
    t = playing(name, 0)
    n = t.state.n
    for seat in range(n):
        around = seat_view(t, seat)["around"]
        assert [a["seat"] for a in around] == [(seat + i) % n for i in range(n)]  # play order
        assert [a["place"] for a in around] == PLACES[n] and around[0]["place"] == "b"
        assert [a["you"] for a in around] == [True] + [False] * (n - 1)
        partners = {a["seat"] for a in around if a["partner"]}
        side = next(s for s in t.state.sides if seat in s)
        assert partners == set(side) - {seat}
        assert sum(a["dealer"] for a in around) == 1


def test_the_trick_sits_in_front_of_who_played_it_and_the_leader_is_marked():
    # standard: 4 bids, then cards until two are on the table
    t = playing("standard", 4)
    st = t.state
    while len(st.trick) < 2:
        seat = st.to_act()[0]
        for ev in apply(st, seat, choose(view(st, seat), 1, rules=st.rules)):
            advance(st, ev)
    around = seat_view(t, 0)["around"]
    on_table = dict(st.trick)
    for a in around:
        assert (a["card"] or {}).get("code") == on_table.get(a["seat"])
        assert a["leads"] == (a["seat"] == st.trick[0][0])
        assert a["turn"] == (a["seat"] in st.to_act())
    bidding = seat_view(playing("standard", 1), 0)["around"]
    assert not any(a["leads"] or a["card"] for a in bidding)  # no one leads while bidding


def test_the_chart_waits_for_a_score_and_draws_grid_target_and_labels():
    labels = ["Ann & Bo", "Cy & <Di>"]
    assert score_svg({"hands": []}, labels, 500) == ""  # no empty box before a score
    pad = {"hands": [{"sides": [{"score": 60}, {"score": -40}]},
                     {"sides": [{"score": 130}, {"score": 21}]}]}
    svg = str(score_svg(pad, labels, 300))
    assert "target 300" in svg and 'stroke-dasharray="6 4"' in svg
    grid = [int(v) for v in re.findall(r'text-anchor="end">(-?\d+)</text>', svg)]
    assert grid == list(range(-100, 301, 100))  # whole steps from below the lowest
    assert "Ann &amp; Bo: 130" in svg and "Cy &amp; &lt;Di&gt;: 21" in svg  # escaped
    assert 'aria-label="Score chart: Ann &amp; Bo 130; Cy &amp; &lt;Di&gt; 21, target 300"' in svg
    assert len(re.findall("<polyline", svg)) == 2 and 'font-size="13"' in svg
    assert [step_for(s) for s in (60, 300, 700, 1500, 90000)] == [10, 50, 200, 250, 20000]
