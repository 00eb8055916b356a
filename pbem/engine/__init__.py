"""The rules of Spades: pure, deterministic, no I/O, no database, no clock.

    st = new_game(preset("standard"), first_dealer=2)
    advance(st, make_deal(st, secrets.SystemRandom()))
    for ev in apply(st, seat, {"type": "bid", "bid": 4}):
        advance(st, ev)
    view(st, seat)  # what that seat may see
"""

from .cards import parse_card, pretty
from .errors import IllegalAction, RulesError
from .game import (
                   ReplayError,
                   advance,
                   apply,
                   can_claim,
                   legal,
                   make_deal,
                   new_game,
                   replay,
                   score_pad,
)
from .parse import parse_action
from .robot import choose
from .rules import PRESETS, Rules, preset
from .state import State
from .view import view

__all__ = [
    "PRESETS", "IllegalAction", "ReplayError", "Rules", "RulesError", "State", "advance",
    "apply", "can_claim", "choose", "legal", "make_deal", "new_game", "parse_action",
    "parse_card", "preset", "pretty", "replay", "score_pad", "view",
]
