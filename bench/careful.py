"""The orders a careful player gives when answering a mail (bench/tempo.py), written in the
real order language (pbem.engine.orders) and decided on that seat's view alone.

Three kinds, each where the player's own view shows the card is safe:
  follow low in clubs    every club I hold is below every club still out: when another
                         seat leads clubs I cannot win, so my lowest goes (standing; not
                         with auto equal, which plays the same card already)
  play KS then QS        I lead next for sure and hold the top trumps still out: each wins,
  then AH                so I keep the lead; the run ends with the one top card of a side
                         suit (it may be trumped, so nothing is ordered after it)
  lead AH next           not sure to lead next: the top card still out of a suit, when I
                         hold another card of it (a lone top card would go when the suit
                         is led to me). Which top card to cash is a choice: where the
                         robot leads another, bench/tempo.py counts the order overruled
No orders while a nil is bid on my side: each card matters there. The player restates
them with each answer (`clear orders`, then these lines), so they follow what it sees.
"""

from pbem.engine.cards import SUIT_NAMES, SUITS
from pbem.engine.rules import NILS
from pbem.engine.tricks import table_for


def careful_lines(v: dict, rules, equal: bool = False) -> list[str]:
    """Order lines for the seat whose view `v` is (after its own card of this mail).
    `equal`: the seat lets touching cards play themselves (auto equal), and those already
    play what `follow low` would: no card still out lies between its cards of the suit."""
    seat, hand = v["seat"], v["hand"] or []
    if v["phase"] != "play" or not hand or _nil_on_side(v, rules, seat):
        return []
    table = table_for(rules)
    seen = set(hand) | {x["card"] for t in v["tricks"] for x in t["cards"]} \
        | {x["card"] for x in v["trick"]}
    out = [c for c in table.deck if c not in seen]
    lines = [f"follow low in {SUIT_NAMES[s]}" for s in SUITS
             if not equal and _cannot_win(table, hand, out, s)]
    run = _run(v, table, hand, out)
    if not _leads_next(v, table, out):
        run = [c for c in run[:1] if sum(table.suit[x] == table.suit[c] for x in hand) > 1]
    if len(run) == 1:
        lines.append(f"lead {run[0]} next")
    elif run:
        lines.append("play " + " then ".join(run))
    return lines


def _nil_on_side(v, rules, seat) -> bool:
    side = next(s for s in rules.sides if seat in s)
    return any(v["bids"][s] in NILS for s in side)


def _cannot_win(table, hand, out, suit) -> bool:
    """Two or more cards of `suit`, all below every card of it still out."""
    mine = [table.power[c] for c in hand if table.suit[c] == suit]
    rest = [table.power[c] for c in out if table.suit[c] == suit]
    return len(mine) >= 2 and bool(rest) and max(mine) < min(rest)


def _leads_next(v, table, out) -> bool:
    """Is this seat sure to lead the next trick? Its turn to lead now, or its card is
    winning the trick and no card still out could beat it."""
    trick = [(x["seat"], x["card"]) for x in v["trick"]]
    if not trick:
        return v["to_act"] == [v["seat"]]
    if trick[table.winning(trick)][0] != v["seat"]:
        return False
    return not any(table.beats(c, trick) for c in out)


def _run(v, table, hand, out) -> list[str]:
    """The cards to lead one after another: the top trumps still out that are mine (if
    trumps may be led), then the side suit's top card, if just one suit has one."""
    power, suit = table.power, table.suit
    run = []
    if v["spades_broken"] or all(suit[c] == "S" for c in hand):
        trumps = sorted((c for c in hand + out if suit[c] == "S"), key=power.get, reverse=True)
        for c in trumps:
            if c not in hand:
                break
            run.append(c)
    tops = [c for c in hand if suit[c] != "S"
            and all(power[o] < power[c] for o in out if suit[o] == suit[c])]
    best = [c for c in tops if power[c] == max((power[t] for t in tops), default=None)]
    if len(best) == 1:
        run.append(best[0])
    return run
