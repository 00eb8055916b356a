"""Robot games: every seat played by engine.choose. Shared by `pbem simulate`, `pbem demo`,
tests and benchmarks, so there is one game loop."""

import random

from .engine import Rules, advance, apply, choose, make_deal, new_game, view

MAX_HANDS = 200  # a game still going after this many hands is reported as unfinished


def play_game(rules: Rules, seed, first_dealer: int | None = None, on_event=None,
              max_hands: int = MAX_HANDS):
    """Play one robot game. Returns (state, events); state.phase is "over" unless the game
    hit `max_hands`. `seed` (int or str) fixes the deals and the robots' choices, so the
    same seed plays the same game. `on_event(state, event)` is called after each event."""
    rng = random.Random(seed)
    if first_dealer is None:
        first_dealer = rng.randrange(rules.players)
    st = new_game(rules, first_dealer)
    events = []
    while st.phase != "over" and st.hand_no < max_hands:
        for ev in _next_events(st, rng, seed):
            advance(st, ev)
            events.append(ev)
            if on_event:
                on_event(st, ev)
    return st, events


def _next_events(st, rng, seed) -> list[dict]:
    if st.phase == "deal":
        return [make_deal(st, rng)]
    seat = st.to_act()[0]  # several may act at once (passing): one at a time is fine
    action = choose(view(st, seat), seed, rules=st.rules)
    return apply(st, seat, action)
