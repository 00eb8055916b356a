"""S7 bonus scores, each an option of its own, added to a side's hand points (no bags).

- `high_bid_bonus` (pagat, Szu Kay Wong's bonuses): "For successful bids of seven or more,
  you get an extra 10 points for each trick bid above six."
- `last_spades_bonus` (the same): "If you take the very last trick with a high spade (nine
  or above), and with that trick you make exactly what you bet, you gain an additional 10
  point bonus ... an unbroken sequence of tricks at the end ... all with high spades (9 or
  above) ... 10 points per trick". Jokers and promoted cards are high spades.
- `last_trick_bonus` (the encyclopedia, "taken from Bela and Pinochle"): "the winner of
  last trick wins 10 bonus points".
- `aces_bonus` (pagat, "playing with aces"): see aces.py.
Tricks a claim ended without playing were won by no card: they earn no spade bonus, and
the last of them is the claimer's.
"""

from .aces import aces_made
from .cards import RANKS
from .rules import NILS

HIGH_SPADE = 100 + RANKS.index("9")  # the power of the nine of spades (tricks.py)


def bonuses(st, side_index, side, bid, tricks, made) -> dict:
    """The side's bonus points this hand, by name (empty when none applies). Scoring asks
    only when Rules.any_bonus says one of these may score: a new bonus goes there too."""
    r = st.rules
    out = {}
    if r.high_bid_bonus and made and bid >= 7:
        out["high_bid"] = 10 * (bid - 6)
    if r.last_spades_bonus and made and tricks == bid:
        run = _high_spade_run(st, side)
        if run:
            out["last_spades"] = run * r.last_spades_bonus
    if r.last_trick_bonus and _last_winner(st) in side:
        out["last_trick"] = r.last_trick_bonus
    if r.double_nil_bonus:  # B11, pagat: "if both partners win a trick, their opponents
        failed = sum(1 for j, seats in enumerate(st.sides)  # get a bonus of 100 points"
                     if j != side_index and _double_nil_both_failed(st, seats))
        if failed:
            out["double_nil_failed"] = failed * r.double_nil_bonus
    if r.aces_bonus and aces_made(st, side_index):
        out["aces"] = r.aces_bonus
    return out


def _double_nil_both_failed(st, seats) -> bool:
    return len(seats) > 1 and all(st.bids[s] in NILS and st.won[s] for s in seats)


def _last_winner(st):
    if st.claimed_by is not None:
        return st.claimed_by
    return st.tricks[-1][1] if st.tricks else None


def _high_spade_run(st, side) -> int:
    """How many of the hand's last tricks, in an unbroken run, the side won with a spade
    of nine or above (the card that won, played by a seat of the side that bid a number)."""
    if st.claimed_by is not None or not st.tricks:  # (the sampler's playouts keep none)
        return 0
    suit, power = st.table.suit, st.table.power
    run = 0
    for cards, winner in reversed(st.tricks):
        card = cards[st.table.winning(cards)][1]  # T4: a declarer plays two cards
        if winner not in side or st.bids[winner] in NILS:
            break
        if suit[card] != "S" or power[card] < HIGH_SPADE:
            break
        run += 1
    return run
