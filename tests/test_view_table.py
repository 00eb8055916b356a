"""view() finds a ruleset's card table by the Rules object first (engine.view._table): it
must always be table_for's table of that very ruleset, whichever tables were asked for
before, from one thread or many."""

import importlib
import random
import threading

from pbem.engine import PRESETS, new_game, preset, view
from pbem.engine.rules import Rules
from pbem.engine.tricks import table_for
from tests.helpers import random_step

view_module = importlib.import_module("pbem.engine.view")  # the module: engine's `view` is
# the function


def test_each_ruleset_gets_its_own_table_in_any_order():
    rulesets = [preset(name) for name in sorted(PRESETS)] + [Rules()]
    rng = random.Random(3)
    for _ in range(300):
        rules = rng.choice(rulesets)
        assert view_module._table(rules) is table_for(rules)
        equal = Rules.from_dict(rules.to_dict())  # equal, another object
        assert view_module._table(equal) is table_for(rules)


def test_views_of_tables_of_other_rules_in_turn_are_as_alone():
    """Views of two games of other rules, asked for in turn, equal each one's views asked
    for with no other game between (the table found anew)."""
    games = [new_game(preset(n), first_dealer=0) for n in ("standard", "six-handed", "mo")]
    rng = random.Random(5)
    for _ in range(150):
        for st in games:
            if st.phase != "over":
                random_step(st, rng)
        for st in games:
            seat = st.to_act()[0] if st.to_act() else None
            mixed = view(st, seat)
            view_module._last_table = (None, None)
            assert view(st, seat) == mixed


def test_threads_each_get_their_rules_table():
    rulesets = [preset(name) for name in sorted(PRESETS)]
    wrong = []

    def work(k):
        for i in range(2000):
            rules = rulesets[(i + k) % len(rulesets)]
            if view_module._table(rules) is not table_for(rules):
                wrong.append(rules.preset)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong
