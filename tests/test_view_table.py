"""One card table a ruleset (engine.tricks.table_for, the one cache of them): a game and
its views use that very table, for equal rules made anew too, whichever tables were asked
for before, from one thread or many."""

import random
import threading

from pbem.engine import PRESETS, new_game, preset, view
from pbem.engine.rules import Rules
from pbem.engine.tricks import table_for
from pbem.engine.view import sort_cards
from tests.helpers import random_step


def test_each_ruleset_gets_its_own_table_in_any_order():
    rulesets = [preset(name) for name in sorted(PRESETS)] + [Rules()]
    rng = random.Random(3)
    for _ in range(300):
        rules = rng.choice(rulesets)
        assert new_game(rules).table is table_for(rules)
        equal = Rules.from_dict(rules.to_dict())  # equal, another object
        assert new_game(equal).table is table_for(rules)


def test_threads_each_get_their_rules_table():
    rulesets = [preset(name) for name in sorted(PRESETS)]
    wrong = []

    def work(k):
        for i in range(2000):
            rules = rulesets[(i + k) % len(rulesets)]
            if new_game(rules).table is not table_for(rules):
                wrong.append(rules.preset)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_a_view_sorts_the_hand_by_its_own_rules():
    """Games of other rules, viewed in turn: each hand sorted by its own table (jokers and
    promoted cards among the spades), as that table alone sorts it."""
    games = [new_game(preset(n), first_dealer=0) for n in ("standard", "six-handed", "mo")]
    rng = random.Random(5)
    seen = 0
    for _ in range(150):
        for st in games:
            if st.phase != "over":
                random_step(st, rng)
        for st in games:
            for seat in range(st.n):
                v = view(st, seat)
                if v["hand"]:
                    seen += 1
                    assert v["hand"] == sort_cards(st.hands[seat], table_for(st.rules))
    assert seen > 300
