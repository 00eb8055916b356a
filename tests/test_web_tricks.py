"""The table page's list of the hand's tricks: who took each, and a dead trick (T6a)."""

from pbem.engine import new_game, preset
from pbem.gamelog import make_header, write_log
from pbem.play import import_log
from tests.helpers import bid_round, deal, do, fixed_hands
from tests.web_helpers import tokens

PAIRED = {1: "AH", 2: "AH", 3: "KH", 4: "KH", 5: "QH", 0: "QH"}


def test_T6a_a_dead_trick_is_listed_as_taken_by_no_one(store, client):
    """Six players whose identical cards cancel (edition 2): the first trick, every card
    with its twin, is dead; the second is taken by a seat, named as usual."""
    rules = preset("six-handed").with_options(identical="cancel")
    st = new_game(rules, 0)
    events = [deal(st, fixed_hands(rules, {s: [c] for s, c in PAIRED.items()}))]
    events += bid_round(st)
    for seat in (1, 2, 3, 4, 5, 0):
        events += do(st, seat, PAIRED[seat])
    while len(st.tricks) < 2:
        seat = st.to_act()[0]
        events += do(st, seat, st.playable(seat)[0])
    assert st.tricks[0][1] is None and st.tricks[1][1] is not None
    names = [f"p{i}@x.test" for i in range(6)]
    gid = import_log(store, write_log(make_header(rules, names, 0), events))
    page = client.get(f"/t/{tokens(store, gid)[0]}").text
    listed = page[page.index("<h2>Tricks of this hand</h2>"):].split("</ol>")[0]
    items = listed.split("<li>")[1:]
    assert len(items) == 2
    assert "→ no one (dead: its identical cards cancelled)" in items[0]
    assert "no one" not in items[1] and items[1].split("→ ")[1].strip().startswith("p")
