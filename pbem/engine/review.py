"""A finished hand's review (issue 33): each side's double-dummy par beside the tricks it
took, and for each seat the card where the hard robot would have played otherwise at the
greatest cost, in tricks.

Pure, and only for a hand that is over (every card of it may then be shown). Bounded: par
is searched from the first trick start with at most PAR_TRICKS tricks left whose search
fits the solver's cap (a whole deal seldom does: bench/par.py), and a seat's cards are
weighed only with at most COST_TRICKS tricks left, all within REVIEW_NODES nodes.
A card's cost is the double-dummy value for the seat's side of the robot's card less that
of the card played, from the position where it was played; the robot sees only what the
seat saw then (pbem.engine.view).
"""


from .game import advance, new_game
from .par import Solver, supported
from .robot import choose
from .tricks import table_for
from .view import view

PAR_TRICKS = 8  # tricks left when par is first tried (each try: at most par.CAP nodes)
COST_TRICKS = 7  # tricks left from which a seat's cards are weighed
REVIEW_NODES = 150_000  # all solves of one review (about 4 s of CPU at the worst)


class _Spot:
    """One card played: the position before it, the seat's view then, the card."""

    def __init__(self, st, card):
        self.seat, self.card = st.turn, card
        self.hands = tuple(tuple(h) for h in st.hands)
        self.trick, self.broken = tuple(st.trick), st.broken
        self.done, self.must_lead = len(st.tricks), st.must_lead
        self.view = view(st, st.turn)
        self.won = tuple(st.won)  # each seat's tricks before this card
        self.left = len(self.hands[self.seat]) + (1 if self.trick else 0)

    def args(self):
        return self.hands, self.trick, self.seat, self.broken, self.done, self.must_lead


def spots(rules, events, first_dealer: int, hand: int):
    """The cards of hand `hand` (0 first) as played (an undone card's spot is replaced by
    the one played after the undo), and the score pad row of the hand, or ([], None) when
    the log does not hold that hand finished."""
    st = new_game(rules, first_dealer)
    at: dict[tuple[int, int], _Spot] = {}
    for ev in events:
        if st.hand_no > hand:
            break
        if st.hand_no == hand and isinstance(ev, dict) and ev.get("type") == "play" \
                and st.phase == "play":
            at[(len(st.tricks), len(st.trick))] = _Spot(st, ev.get("card"))
            for k in [k for k in at if k > (len(st.tricks), len(st.trick))]:
                del at[k]  # an undo took those back
        advance(st, ev)
    if st.hand_no <= hand:
        return [], None
    return [at[k] for k in sorted(at)], st.history[hand]


def robot_card(spot, seed: int, rules) -> str | None:
    return hard_card(spot.view, seed, rules)


def hard_card(seen: dict, seed: int, rules) -> str | None:
    """The card the hard robot plays from this seat's view (a hint, a review), or None if
    the seat has no card to play. Only the view: what the seat itself may see."""
    if not any(a.get("type") == "play" for a in seen.get("legal", ())):
        return None
    return choose(seen, seed, rules, level="hard").get("card")


def review(rules, events, first_dealer: int, hand: int, seed: int = 0) -> dict | None:
    """The review of hand `hand` (0 first) as JSON data, or None if that hand is not over
    in `events`. {"hand": number, "supported": bool, "par": {"from_trick": t, "sides":
    [{"par": p, "took": t}]} or None, "seats": [{"trick", "card", "robot", "cost"} or None]}"""
    played, row = spots(rules, events, first_dealer, hand)
    if row is None:
        return None
    out: dict = {"hand": hand + 1, "supported": supported(rules), "par": None,
                 "seats": [None] * rules.players}
    if not out["supported"] or not played:
        return out
    table = table_for(rules)
    solvers = [Solver(rules, table, side) for side in rules.sides]
    budget = [REVIEW_NODES]
    out["par"] = _par(rules, played, row, solvers, budget)
    out["seats"] = _costs(rules, played, solvers, budget, seed)
    return out


def _par(rules, played, row, solvers, budget) -> dict | None:
    """Par from the first trick start that can be worked out: each side's best there,
    beside what it took from there."""
    for spot in played:
        if spot.trick or spot.left > PAR_TRICKS or budget[0] <= 0:
            continue
        pars = []
        for solver in solvers:
            got = solver.value(*spot.args())
            budget[0] -= solver.nodes
            if got is None:
                break
            pars.append(got)
        if len(pars) == len(solvers):
            took = _took_from(rules, spot, row)
            return {"from_trick": spot.done + 1,
                    "sides": [{"par": p, "took": t} for p, t in zip(pars, took, strict=True)]}
    return None


def _took_from(rules, spot, row) -> list[int]:
    """Each side's tricks from `spot` to the end: the pad's count less those taken before."""
    return [side["tricks"] - sum(spot.won[s] for s in seats)
            for side, seats in zip(row["sides"], rules.sides, strict=True)]


def _costs(rules, played, solvers, budget, seed) -> list[dict | None]:
    """Each seat's costliest card (cost > 0), or None."""
    side_of = {seat: i for i, side in enumerate(rules.sides) for seat in side}
    worst: list[dict | None] = [None] * rules.players
    for spot in played:
        if spot.left > COST_TRICKS or budget[0] <= 0:
            continue
        bot = robot_card(spot, seed, rules)
        if bot is None or bot == spot.card:
            continue
        solver = solvers[side_of[spot.seat]]
        mine = solver.after(*spot.args()[:5], spot.card, spot.must_lead)
        budget[0] -= solver.nodes
        its = solver.after(*spot.args()[:5], bot, spot.must_lead)
        budget[0] -= solver.nodes
        if mine is None or its is None or its <= mine:
            continue
        best = worst[spot.seat]
        if best is None or its - mine > best["cost"]:
            worst[spot.seat] = {"trick": spot.done + 1, "card": spot.card, "robot": bot,
                                "cost": its - mine}
    return worst
