"""The state of a game, and how each event changes it.

Every event type has a check (raises IllegalAction, changes nothing) and a step (changes
the state). `advance` does both: replaying a log is advancing through its events.
"""

import copy
from collections import Counter
from collections.abc import Callable
from operator import add

from .aces import aces_problem, with_aces
from .acts import (
    QUIET,
    check_concede,
    check_say,
    check_undo,
    mark_shown,
    remember,
    step_concede,
    step_say,
    step_undo,
)
from .bidlist import bid_actions, plain_bids
from .cards import FACES
from .claims import LIVE_BUDGET, REPLAY_BUDGET, claim_holds
from .commitment import deal_digest
from .dummy import choose_declarer, hand_in_play, next_hand, play_order, set_hand
from .errors import N_, IllegalAction, Words
from .forced import forced_fits
from .leftover import give_leftover, leftover_after_bidding
from .mo import mo_leads, mo_problem, with_mo
from .moon import clash_reason, moon_options, nil_barred, skip_partners
from .notrump import no_trump_problem, with_no_trump
from .raises import raise_options, raise_problem, start_raises
from .rules import MOONS, NILS, Rules, promised
from .rulings import check_adjudicate, step_adjudicate
from .scoring import end_of_game, score_hand
from .tricks import breaks_spades, playable_cards, table_for

_SEEN = (False, False, None)  # State._bid_context: no blind nil, no blind bid, every bid fits


def _no_cards(n: int) -> list[list[str]]:
    """A new empty list for each of `n` seats (at most six): a literal, cut to size, costs
    CPython 3.11 a third of what a comprehension does (it makes and calls a function)."""
    empty: list[list[str]] = [[], [], [], [], [], []]
    return empty[:n]


class State:
    """A game in progress. Change it only with `advance`."""

    def __init__(self, rules: Rules, first_dealer: int = 0) -> None:
        if not 0 <= first_dealer < rules.players:
            raise IllegalAction(f"first dealer {first_dealer} is not a seat")
        self.rules = rules
        self.table = table_for(rules)
        self.n = rules.players
        self.sides = rules.sides
        self.side_of = [next(i for i, s in enumerate(self.sides) if seat in s)
                        for seat in range(self.n)]
        self.seq = 0
        self.first_dealer = self.dealer = first_dealer
        self.phase = "deal"
        self.hand_no = 0
        self.scores = [0] * len(self.sides)
        self.bags = [0] * len(self.sides)
        self.sets_in_row = [0] * len(self.sides)
        self.history: list[dict] = []  # one score pad row per finished hand
        self.winner: int | None = None
        self.last_deal: dict | None = None  # the previous hand, shown to all once it is over
        self.misdeals: list[dict] = []
        self.resigned: int | None = None  # the seat that resigned (or forfeited), if one did
        self.deal_record: dict | None = None  # the latest deal, for its commitment
        self.reveals: dict[int, str] = {}  # deal seq -> salt, once revealed
        self.revealed_deal: dict | None = None  # the latest revealed deal, cards and salt
        self._checked: dict | tuple | None = None  # the last event `check` passed, at this seq
        # legal()'s last quick answer, for apply(): (seq, seat, the test giving back an
        # action offered: a card's by its card, a bid's by its id; else None). A note, like
        # _checked: no part of the game (a replay, which asks no legal(), has none)
        self._offered: tuple = (-1, None, None)
        self.move_seq = 0  # the last event that was not talk or an offer (acts.QUIET)
        self.last_moved = [0] * self.n  # each seat's last own event but talk and offers
        self.talk: list[dict] = []  # the latest `say` events (acts.TALK_KEEP)
        self.undo_point: tuple | None = None  # (seat, seq, what its step changed): acts.py
        self.rulings: list[dict] = []  # the organiser's rulings in force (rulings.py)
        self._clear_hand()

    def _clear_hand(self) -> None:
        n = self.n
        self.hands: list[list[str]] = _no_cards(n)
        self.dealt: list[list[str]] = _no_cards(n)
        self.out: list[str] = []
        self.stock: list[str] = []
        self.discards: list[list[str]] = _no_cards(n)
        self.looked = [True] * n
        self.bids: list = [None] * n
        self.blind = [False] * n
        self.came_out = [False] * len(self.sides)
        self.bid_turns: list[tuple[int, ...]] = []
        self.bid_index = 0
        self.comeout_side: int | None = None
        self.pass_steps: list[tuple[tuple[int, ...], int]] = []
        self.passes: dict[int, list[str]] = {}
        self.passed_to: list[list[str]] = _no_cards(n)  # cards each seat received
        self.passed_away: list[list[str]] = _no_cards(n)
        self.after_pass = "bid"
        self.discarding = False  # D6: the pass step due is the leftover taker's discard
        self.turn = -1
        self.trick: list[tuple[int, str]] = []
        # finished: (cards, winner); the winner None for a dead trick (T6a, edition 2)
        self.tricks: list[tuple[list[tuple[int, str]], int | None]] = []
        self.won = [0] * n
        self.broken = False
        self.must_lead: str | None = None
        self.claimed_by: int | None = None
        self.unbid = False
        self.offers: set[int] = set()  # seats that offered to resign this hand (concede)
        self.mo: dict | None = None  # B12: {"seat": s, "call": "little mo"} once called
        self.aces_called: list[int] = []  # S7: seats that announced the four aces
        self.no_trump: list[int] = []  # B14: seats that bid no trump
        self.raising = False  # B7: the second round, keeping or raising bids, is on
        self.dummy_hand: list[str] = []  # T4: the fourth hand (dummy.py)
        self.dummy_dealt: list[str] = []
        self.declarer: int | None = None  # T4: who plays the dummy, once the play starts
        self.playing_hand: int | None = None  # T4: the hand on turn (st.n: the dummy)
        self.trick_hands: list[int] = []  # T4: which hand played each card of the trick

    def snapshot(self) -> "State":
        """An independent copy. The rules, their sides and the card table are shared: they
        never change; so are the score pad's rows of finished hands and the finished tricks
        of this hand (only appended, or an undo pops one, never changed: the most of a copy),
        and the records of the deals (each made anew, never changed), the hands as dealt
        among them (`dealt`: only ever replaced): the copy has its own lists of the rest.
        copy.deepcopy takes ~150 us a mid-game state (a hand-made copier took 90): a few a
        move, nothing at a club's 5,000 moves a day; the robots and claims take none."""
        memo = {id(self.rules): self.rules, id(self.table): self.table, id(self.sides): self.sides,
                id(self.dealt): self.dealt}
        memo.update((id(row), row) for row in self.history)
        memo.update((id(done), done) for done in self.tricks)
        for record in (self.deal_record, self.revealed_deal, self.last_deal):
            memo[id(record)] = record
        return copy.deepcopy(self, memo)

    # -- questions ------------------------------------------------------------
    def partner(self, seat: int) -> int | None:
        side = self.sides[self.side_of[seat]]
        return next((s for s in side if s != seat), None)

    def display_scores(self) -> list[int]:
        """Scores as the pad shows them: with "bags kept apart" the units digit is bags."""
        if self.rules.bags_in_score:
            return list(map(add, self.scores, self.bags))
        return self.scores[:]

    def behind(self, side: int) -> int:
        """How far `side` trails the best other side."""
        shown = self.display_scores()  # (a new list: the pop changes nothing else)
        mine = shown.pop(side)
        return max(shown) - mine

    def to_act(self) -> list[int]:
        """Seats that may act now (several during simultaneous passing and side bids)."""
        ph = self.phase
        if ph == "play" or ph == "draw":
            return [self.turn]
        if ph == "bid":
            if self.comeout_side is not None:
                return list(self.sides[self.comeout_side])
            return list(self.bid_turns[self.bid_index])
        if ph == "pass":
            return [s for s in self.pass_steps[0][0] if s not in self.passes]
        return []

    def hand_over(self) -> bool:
        return self.phase in ("deal", "over") and self.last_deal is not None

    # -- the cards a seat may play ----------------------------------------------
    def playable(self, seat: int) -> list[str]:
        """The cards `seat` may play now (empty if it is not their turn to play)."""
        if self.phase != "play" or seat != self.turn:
            return []
        trick, table = self.trick, self.table
        if trick and table.plain_follow and self.declarer is None:  # most cards: follow suit
            hand = self.hands[seat]  # if you can, else any card
            return list(filter(table.follows[table.suit[trick[0][1]]], hand)) or hand[:]
        hand = self.hands[seat] if self.declarer is None else hand_in_play(self, seat)
        return playable_cards(self.rules, self.table, hand, self.trick, self.broken,
                              len(self.tricks), self.must_lead)

    def hand_of(self, seat: int) -> list[str]:
        """The cards `seat` plays from now (T4: the dummy's, at the dummy's turn)."""
        return self.hands[seat] if self.declarer is None else hand_in_play(self, seat)

    # -- bids a seat may make -----------------------------------------------------
    def bid_options(self, seat: int) -> list:
        """Every bid `seat` may make now: {"bid": 4}, {"bid": "nil"}, {"bid": 7, "blind": True}."""
        if self.raising:  # B7
            return raise_options(self, seat) if self._bid_context(seat) else []
        ctx = self._bid_context(seat)
        if ctx is None:
            return []
        blind_nil, blind_bids, fits = ctx
        out = plain_bids(self.rules, blind_nil, blind_bids)
        out += moon_options(self, seat, self._side_unlooked(seat))
        if fits is not None:
            out = [o for o in out if fits(o["bid"])]
        out = with_aces(self, seat, out)
        return with_mo(self, seat, with_no_trump(self, seat, out))

    def bid_actions(self, seat: int) -> list | tuple:
        """legal()'s bids: bid_options(seat) as actions, ready-made where they are plain
        (offered to apply()'s quick way: see State._offered)."""
        if self.table.only_plain_bids:  # (and so no raise round either)
            ctx = self._bid_context(seat)
            if ctx is None:
                return ()
            if ctx[2] is None:
                # (most bids: made already, no call)
                acts, test = self.table.bid_actions.get(ctx) or bid_actions(
                    self.table, self.rules, ctx)
                self._offered = (self.seq, seat, test)
                return acts
        return [{"type": "bid", **o} for o in self.bid_options(seat)]

    def bid_allowed(self, seat: int, bid, blind: bool) -> bool:
        """Is this one bid among bid_options(seat)? (without listing them all)"""
        if self.raising:  # B7
            return not blind and {"bid": bid} in self.bid_options(seat)
        ctx = self._bid_context(seat)
        if ctx is None:
            return False
        r = self.rules
        blind_nil, blind_bids, fits = ctx
        if bid == "blind nil":
            ok = blind_nil and not blind
        elif bid == "nil":
            ok = r.nil and not blind
        elif bid in MOONS:
            ok = not blind and {"bid": bid} in moon_options(self, seat, self._side_unlooked(seat))
        elif bid.__class__ is int:
            lo = r.blind_min if blind else r.bid_min
            ok = (blind_bids or not blind) and lo <= bid <= self.table.max_bid
        else:
            ok = False
        return ok and (fits is None or fits(bid))

    def _side_unlooked(self, seat) -> bool:
        return not any(self.looked[s] for s in self.sides[self.side_of[seat]])

    def _bid_context(self, seat):
        """(blind nil open?, blind bids open?, does-a-bid-fit test or None if every bid
        fits) or None if not bidding."""
        if self.phase != "bid" or self.comeout_side is not None:
            return None
        if seat not in self.bid_turns[self.bid_index]:
            return None
        table = self.table
        if table.free_bids and self.looked[seat] and not table.side_unseen:
            return _SEEN  # most bids: a seat that has seen its cards bids nothing blind
        r = self.rules
        side = self.side_of[seat]
        unlooked = not self.looked[seat]
        if table.side_unseen:
            unlooked = not any(self.looked[s] for s in self.sides[side])
        behind = self.behind(side) if unlooked else 0
        blind_nil = r.blind_nil and unlooked and behind >= r.blind_nil_behind
        blind_bids = bool(r.blind_min) and unlooked and behind >= r.blind_behind
        if table.free_bids:  # no rule to test a bid against (most games)
            return blind_nil, blind_bids, None
        fits, forced = self._bid_fits(seat), forced_fits(self, seat)
        if forced is not None and fits is not None:
            return blind_nil, blind_bids, lambda bid: forced(bid) and fits(bid)
        return blind_nil, blind_bids, forced or fits

    def _bid_fits(self, seat):
        """A test of one bid against the side minimum (B4) and the bids' total (B8); None
        when neither rules any bid out."""
        r = self.rules
        need = reach = None  # B4: the side's bids add up to side_min, unless all bid nil
        if r.side_min:
            mates = [self.bids[m] for m in self.sides[self.side_of[seat]] if m != seat]
            made = sum(promised(b, r.hand_size) for b in mates if b is not None)
            if None in mates:  # a number now must leave side_min within the others' reach
                reach = r.side_min - made - r.max_bid * mates.count(None)
            else:  # the side's last bidder brings it to side_min
                need = (r.side_min - made, all(b in NILS for b in mates))
        banned = None  # the last bid may not bring the total to the number of tricks
        if r.no_exact_total:
            others = [b for s, b in enumerate(self.bids) if s != seat and b is not None]
            if len(others) + 1 == len(self.bid_turns):
                banned = r.hand_size - sum(promised(b, r.hand_size) for b in others)
        barred = nil_barred(self, seat)  # B10: no double nil against a moon
        if need is None and reach is None and banned is None and not barred:
            return None

        def fits(bid) -> bool:
            if barred and bid in NILS:
                return False
            value = promised(bid, r.hand_size)
            if reach is not None and bid not in NILS and value < reach:
                return False
            if need is not None and value < need[0] and not (bid in NILS and need[1]):
                return False
            return value != banned

        return fits

    def misdeal_allowed(self, seat: int) -> bool:
        r = self.rules
        if not r.misdeal or self.phase != "bid" or not self.looked[seat]:
            return False
        if self.comeout_side is not None:
            return False
        if r.misdeal_before == "bidding":
            if any(b is not None for b in self.bids):
                return False
        elif any(self.bids[s] is not None for s in self.sides[self.side_of[seat]]):
            return False
        return self._misdeal_hand(self.hands[seat])

    def _misdeal_hand(self, hand) -> bool:
        suit = self.table.suit
        spades = sum(1 for c in hand if suit[c] == "S")
        tests = {
            "no_spades": spades == 0,
            "one_spade": spades <= 1,
            "no_faces": not any(c[0] in FACES for c in hand if c not in ("BJ", "LJ")),
            "long_suit": max(Counter(suit[c] for c in hand).values(), default=0) >= 7,
        }
        return any(tests[t] for t in self.rules.misdeal)


# -- events: check, then step --------------------------------------------------------


# a phase as a refusal names it ("phase: bidding"), marked for the catalogue
PHASES = {"deal": N_("the deal"), "draw": N_("drawing"), "pass": N_("passing cards"),
          "bid": N_("bidding"), "play": N_("the play"), "over": N_("the game is over")}


def _phase(st: State) -> Words:
    return Words(PHASES.get(st.phase, st.phase))


def _need(cond, msg, **values):
    """Refuse with `msg` (a template marked N_ where a player reads it) unless `cond`."""
    if not cond:
        raise IllegalAction(msg, **values)


def _seat_of(st: State, ev) -> int:
    seat = ev.get("seat")
    if seat.__class__ is not int or not 0 <= seat < st.n:
        raise IllegalAction(f"seat {seat!r} is not a seat at this table")
    return seat


def _is_subset(cards, hand) -> bool:
    need, have = Counter(cards), Counter(hand)
    return all(have[c] >= k for c, k in need.items())


def check_deal(st: State, ev):
    r = st.rules
    _need(st.phase == "deal", N_("no deal is due now (phase: %(phase)s)"), phase=_phase(st))
    _need(ev.get("dealer") == st.dealer, f"seat {st.dealer} deals now, not {ev.get('dealer')!r}")
    hands = ev.get("hands")
    _need(isinstance(hands, list) and len(hands) == st.n and all(isinstance(h, list)
          for h in hands), f"a deal has {st.n} hands")
    dummy = ev.get("dummy", [])
    _need(isinstance(dummy, list) and (len(dummy) == r.hand_size if r.dummy else not dummy),
          f"the dummy (T4) has {r.hand_size} cards" if r.dummy else "this game has no dummy")
    stock = ev.get("stock", [])
    out = ev.get("out", [])
    _need(isinstance(stock, list) and isinstance(out, list), "stock and out are lists of cards")
    if r.deal == "draw":
        _need(not any(hands) and not out, "with the draw phase the cards start in the stock")
    else:
        _need(not stock, "this game has no stock")
        for seat, h in enumerate(hands):
            _need(len(h) == r.hand_size, f"seat {seat}'s hand has {len(h)} cards, not "
                  f"{r.hand_size}")
    every = [c for h in hands for c in h] + stock + out + dummy
    _need(set(map(type, every)) <= {str}, "a deal lists cards as strings (e.g. \"QH\")")
    if sorted(every) != st.table.sorted_deck:  # the message only when it is needed
        raise IllegalAction(_deck_mismatch(every, st.table.sorted_deck))


def _deck_mismatch(cards, deck) -> str:
    """Which cards make a deal differ from the deck: "the deal is not exactly the deck: 5H
    once too often, AS missing"."""
    have, want = Counter(cards), Counter(deck)
    extra = sorted((have - want).elements())
    missing = sorted((want - have).elements())
    said = [f"{c} once too often" for c in extra[:5]] + [f"{c} missing" for c in missing[:5]]
    more = len(extra) + len(missing) - len(said)
    return "the deal is not exactly the deck: " + ", ".join(said) + (
        f" and {more} more" if more > 0 else "")


def step_deal(st: State, ev):
    # the table was cleared when the last hand ended (or at the misdeal, or the start): of
    # what it holds only an offer to resign can have come since, and it lasts to the deal
    st.offers = set()
    st.deal_record = {"seq": ev["seq"], "hands": ev["hands"], "out": ev.get("out", []),
                      "stock": ev.get("stock", []), "commitment": ev.get("commitment"),
                      "dummy": ev.get("dummy", [])}
    st.hands = list(map(list, ev["hands"]))
    st.dealt = list(map(list, ev["hands"]))
    st.dummy_hand, st.dummy_dealt = list(ev.get("dummy", [])), list(ev.get("dummy", []))
    st.out = list(ev.get("out", []))
    st.stock = list(ev.get("stock", []))
    r = st.rules
    if r.deal == "draw":
        st.phase, st.turn = "draw", (st.dealer + 1) % st.n
        return
    _start_passing_or_bidding(st)


def _looked_at_deal(st: State) -> list[bool]:
    """Which seats start the bidding having looked: all but those whose side may bid blind
    (the rules and the score decide it for a whole side, so it is asked once a side)."""
    r = st.rules
    if r.first_hand_unbid and st.hand_no == 0:
        return [True] * st.n
    if r.blind_moon:
        return [False] * st.n
    if not (r.blind_nil or r.blind_min):
        return [True] * st.n
    looked = [not (r.blind_nil and behind >= r.blind_nil_behind
                   or r.blind_min and behind >= r.blind_behind)
              for behind in map(st.behind, range(len(st.sides)))]
    return [looked[side] for side in st.side_of]


def _start_passing_or_bidding(st: State):
    r = st.rules
    if r.pass_to_partner:  # everyone sees their cards to pass them: no blind bids after
        st.pass_steps = [(tuple(range(st.n)), r.pass_to_partner)]
    else:
        st.looked = _looked_at_deal(st)
    if give_leftover(st) or st.pass_steps:  # D6: the taker's discard comes first
        st.phase, st.after_pass = "pass", "bid"
        return
    _start_bidding(st)


def _start_bidding(st: State):
    r = st.rules
    if r.first_hand_unbid and st.hand_no == 0:
        st.unbid = True
        st.looked = [True] * st.n
        _after_bidding(st)  # D6: a discard after the bidding is still due
        return
    d, n = st.dealer, st.n
    order = [(d + 1 + i) % n for i in range(n)]
    if r.bid_order == "dealer":
        order = order[-1:] + order[:-1]
    if r.bidding == "side":
        sides = list(dict.fromkeys(st.side_of[s] for s in order))
        st.bid_turns = [tuple(st.sides[i]) for i in sides]
    else:
        if r.bid_order == "side":
            sides = list(dict.fromkeys(st.side_of[s] for s in order))
            order = [s for i in sides for s in order if st.side_of[s] == i]
        st.bid_turns = [(s,) for s in order]
    st.bid_index = 0
    st.phase = "bid"


def check_draw(st: State, ev):
    seat = _seat_of(st, ev)
    _need(st.phase == "draw", N_("there is nothing to draw now"))
    _need(seat == st.turn, N_("it is seat %(seat)s's turn to draw"), seat=st.turn)
    _need(isinstance(ev.get("keep"), bool), "a draw says keep: true or false")


def step_draw(st: State, ev):
    seat = ev["seat"]
    first, second = st.stock[0], st.stock[1]
    keep, drop = (first, second) if ev["keep"] else (second, first)
    st.hands[seat].append(keep)
    st.discards[seat].append(drop)
    del st.stock[:2]
    st.turn = (seat + 1) % st.n
    if not st.stock:
        st.dealt = [list(h) for h in st.hands]
        _start_passing_or_bidding(st)


def check_look(st: State, ev):
    seat = _seat_of(st, ev)
    _need(st.phase == "bid" and not st.looked[seat], N_("you have already seen your cards"))


def step_look(st: State, ev):
    _seen(st, ev["seat"])


def _seen(st: State, seat: int):
    """`seat` has seen its cards. Where a side bids blind only while neither partner has
    looked (side bidding, blind_side_unseen), its partners may no longer bid blind: they see
    theirs too, with no round trip to ask for a look."""
    st.looked[seat] = True
    if st.rules.bidding == "side" or st.rules.blind_side_unseen:
        for s in st.sides[st.side_of[seat]]:
            st.looked[s] = True


def check_bid(st: State, ev):
    seat = _seat_of(st, ev)
    if st.phase != "bid":  # (each refusal's words are made only when it is refused)
        raise IllegalAction(N_("this is not the time to bid (phase: %(phase)s)"),
                            phase=_phase(st))
    if st.comeout_side is not None:
        raise IllegalAction(N_("first say whether you come out of the blind bid"))
    if seat not in st.bid_turns[st.bid_index]:
        raise IllegalAction(N_("it is not your turn to bid: waiting for seat %(seat)s"),
                            seat=st.bid_turns[st.bid_index][0])
    bid, blind = ev.get("bid"), bool(ev.get("blind"))
    if not st.bid_allowed(seat, bid, blind):
        want = {"bid": bid, "blind": True} if blind else {"bid": bid}
        why = None if blind else clash_reason(st, seat, bid)
        if why is not None:
            raise IllegalAction(N_("bid %(bid)s is not allowed here: %(why)s; %(hint)s"),
                                bid=_bid_text(want), why=why, hint=_bid_hint(st, seat))
        raise IllegalAction(N_("bid %(bid)s is not allowed here: %(hint)s"),
                            bid=_bid_text(want), hint=_bid_hint(st, seat))
    problem = raise_problem(ev) if st.raising else None
    if problem is None and "mo" in ev:
        problem = mo_problem(st, seat, ev)
    if problem is None and "aces" in ev:
        problem = aces_problem(st, seat, ev)
    if problem is None and "no_trump" in ev:
        problem = no_trump_problem(st, seat, ev)
    if problem is not None:
        raise IllegalAction(problem.template, **problem.values)


def _bid_text(b) -> str:
    mo = (f" {b['mo']}" if b.get("mo") else "") + (" aces" if b.get("aces") else "")
    mo = (" no trump" if b.get("no_trump") else "") + mo
    return ("blind " if b.get("blind") else "") + str(b["bid"]) + mo


def _bid_hint(st: State, seat: int) -> Words:
    opts = st.bid_options(seat)
    if not opts:
        return Words(N_("no bid is open"))
    return Words(N_("you may bid %(bids)s"), bids=", ".join(_bid_text(o) for o in opts))


def step_bid(st: State, ev):
    seat, r = ev["seat"], st.rules
    st.bids[seat] = ev["bid"]
    st.blind[seat] = bool(ev.get("blind")) or ev["bid"] in ("blind nil", "blind moon")
    if ev["bid"] in MOONS:  # B10: the side's whole contract
        skip_partners(st, seat)
    if ev.get("mo"):
        st.mo = {"seat": seat, "call": ev["mo"]}
    if ev.get("aces"):
        st.aces_called.append(seat)
    if ev.get("no_trump"):
        st.no_trump.append(seat)
    _seen(st, seat)
    if r.bidding == "side":
        if st.blind[seat] and r.blind_come_out and ev["bid"] not in MOONS and ev["bid"] < 10:
            st.comeout_side = st.side_of[seat]
            return
    _next_bidder(st)


def _next_bidder(st: State):
    st.bid_index += 1
    if st.bid_index < len(st.bid_turns) or start_raises(st):
        return
    _after_bidding(st)


def _after_bidding(st: State):
    st.pass_steps = _exchange_steps(st)
    leftover_after_bidding(st)  # D6: a discard after the bidding comes first
    if st.pass_steps:
        st.phase, st.after_pass = "pass", "play"
    else:
        _start_play(st)


def check_comeout(st: State, ev):
    seat = _seat_of(st, ev)
    _need(st.comeout_side is not None and st.phase == "bid",
          N_("there is no blind bid to come out of"))
    _need(st.side_of[seat] == st.comeout_side, N_("only the blind bidders may come out"))


def step_come_out(st: State, ev):
    side = st.comeout_side
    assert side is not None  # (check_comeout: the blind bidders' side)
    for s in st.sides[side]:
        if st.bids[s] is not None:
            st.bids[s], st.blind[s] = 10, False
    st.came_out[side] = True
    st.comeout_side = None
    _next_bidder(st)


def step_stay(st: State, ev):
    st.comeout_side = None
    _next_bidder(st)


def _exchange_steps(st: State):
    r = st.rules
    steps = []
    for side in st.sides:
        nils = [s for s in side if st.bids[s] in NILS]
        if r.double_nil is not None and len(nils) == len(side) > 1:
            if r.double_nil_exchange:
                steps.append((tuple(side), r.double_nil_exchange))
            continue
        for s in nils:
            k = r.blind_nil_exchange if st.bids[s] == "blind nil" else r.nil_exchange
            if k:
                steps += [((s,), k), ((st.partner(s),), k)]
    return steps


def check_pass(st: State, ev):
    seat = _seat_of(st, ev)
    _need(st.phase == "pass", N_("no cards are being passed now"))
    seats, k = st.pass_steps[0]
    _need(seat in seats and seat not in st.passes, N_("you have no cards to pass now"))
    cards = ev.get("cards")
    if cards == [] and may_decline(st, seat):
        return  # the nil bidder keeps its cards: no exchange this hand
    _need(isinstance(cards, list) and len(cards) == k, N_("pass exactly %(count)s cards"),
          count=k)
    _need(_is_subset(cards, st.hands[seat]), N_("you can only pass cards you hold"))


def may_decline(st: State, seat: int) -> bool:
    """P2: may this seat, a blind nil bidder whose exchange with its partner begins now, keep
    its cards (so that its partner passes none back)? pagat: the bidder "may exchange"."""
    # with both partners on nil each step may be the return of the other's exchange: no
    # declining there, or one would give cards and get none back
    return (st.rules.blind_nil_exchange_optional and st.phase == "pass"
            and st.after_pass == "play" and st.pass_steps[0][0] == (seat,)
            and st.bids[seat] == "blind nil" and st.bids[_mate(st, seat)] not in NILS)


def step_pass(st: State, ev):
    seat, cards = ev["seat"], list(ev["cards"])
    if not cards and may_decline(st, seat):  # no exchange: the partner passes nothing back
        st.pass_steps[:2] = []
        if not st.pass_steps:
            _start_play(st)
        return
    hand = st.hands[seat]
    for c in cards:
        hand.remove(c)
    st.passes[seat] = cards
    st.passed_away[seat] += cards
    st.looked[seat] = True
    seats, _ = st.pass_steps[0]
    if all(s in st.passes for s in seats):
        for s in seats:
            if st.discarding:  # D6: face down, out of play until the hand is over
                st.out += st.passes[s]
                continue
            to = _pass_target(st, s)
            st.hands[to] += st.passes[s]
            st.passed_to[to] += st.passes[s]
        st.discarding = False
        st.passes = {}
        st.pass_steps.pop(0)
        if not st.pass_steps:
            if st.after_pass == "bid":
                _start_bidding(st)
            else:
                _start_play(st)


def _mate(st: State, seat: int) -> int:
    """The partner of `seat`, asked only where the rules give it one."""
    mate = st.partner(seat)
    assert mate is not None, "a seat without a partner"
    return mate


def _pass_target(st: State, seat: int) -> int:
    """Who gets `seat`'s cards: the partner, except the pass before bidding with P4's
    pass_to "left" (the next seat clockwise) or "right" (the one before)."""
    way = st.rules.pass_to
    if st.after_pass != "bid" or way == "partner":
        return _mate(st, seat)
    return (seat + (1 if way == "left" else -1)) % st.n


def _start_play(st: State):
    r = st.rules
    st.phase = "play"
    st.must_lead = None
    if r.first_lead == "dealer":
        st.turn = st.dealer
    elif r.first_lead == "low_club":
        low = min(((st.table.power[c], s, c) for s in range(st.n) for c in st.hands[s]
                   if st.table.suit[c] == "C"), default=None)
        if low is None:
            st.turn = (st.dealer + 1) % st.n
        else:
            st.turn, st.must_lead = low[1], low[2]
    else:
        st.turn = (st.dealer + 1) % st.n
    if (leader := mo_leads(st)) is not None:  # B12: the side that called Mo leads
        st.turn, st.must_lead = leader, None
    if r.dummy:  # T4: the highest bidder plays the dummy opposite
        choose_declarer(st)
        set_hand(st, st.turn)


def check_play(st: State, ev):
    seat = _seat_of(st, ev)
    if st.phase != "play":
        raise IllegalAction(N_("this is not the time to play a card (phase: %(phase)s)"),
                            phase=_phase(st))
    if seat != st.turn:
        raise IllegalAction(N_("it is not your turn: waiting for seat %(seat)s"), seat=st.turn)
    card = ev.get("card")
    if card not in st.hand_of(seat):
        if st.hand_of(seat) is not st.hands[seat]:
            raise IllegalAction(N_("%(card)s is not in the dummy"), card=repr(card))
        raise IllegalAction(N_("%(card)s is not in your hand"), card=repr(card))
    if card not in st.playable(seat):
        raise IllegalAction(N_("you may not play %(card)s now: %(reason)s"), card=card,
                            reason=_play_reason(st, seat))


def _play_reason(st: State, seat) -> Words:
    if st.must_lead:
        return Words(N_("the first trick is led with %(card)s"), card=st.must_lead)
    if not st.trick:
        return Words(N_("spades may not be led yet"))
    if st.rules.must_beat and st.trick:
        return Words(N_("you must follow suit, and beat the highest card so far if you can"))
    if st.rules.rake and st.trick[0][1] == "BJ":
        return Words(N_("the big joker was led: play your highest spade (rake 'em and shake "
                        "'em)"))
    return Words(N_("you must follow suit"))


def step_play(st: State, ev):
    """T4: a card from the declarer's or the dummy's hand (advance() plays every card from
    a seat's own hand itself, in one go: the hot path)."""
    seat, card = ev["seat"], ev["card"]
    hand_in_play(st, seat).remove(card)
    st.trick.append((seat, card))
    st.must_lead = None
    if not st.broken and breaks_spades(st.table, st.trick):
        st.broken = True
    _step_dummy_play(st)


def _trick_over(st: State, trick):
    """The trick's last card is down: its winner takes it and leads next; the hand's last
    trick ends the hand (its cards can no longer be taken back)."""
    if st.table.dead_tricks:
        _trick_taken(st, trick)
    else:
        winner = st.turn = trick[st.table.winning(trick)][0]
        st.won[winner] += 1  # (as _trick_done: a call fewer a trick)
        st.tricks.append((trick, winner))
    st.trick = []
    if len(st.tricks) == st.table.hand_size:
        _end_hand(st)
        st.undo_point = None


def _trick_taken(st: State, trick):
    """T6a, edition 2: a trick won by no one is dead: it counts for no seat, and the seed
    says nothing of the next lead, so its leader leads again (as nobody took the lead from
    it). It stays in `tricks` with no winner: a hand still has hand_size tricks."""
    best = st.table.taker(trick)
    if best is None:
        st.turn = trick[0][0]
        st.tricks.append((trick, None))
        return
    winner = st.turn = trick[best][0]
    st.won[winner] += 1
    st.tricks.append((trick, winner))


def _trick_done(st: State, winner: int):
    st.won[winner] += 1
    st.tricks.append((st.trick, winner))
    st.trick = []


def _step_dummy_play(st: State):
    """T4: the next of the four hands plays; the trick's winning hand leads the next."""
    hand = st.playing_hand
    assert hand is not None  # (set once the play starts)
    st.trick_hands.append(hand)
    if len(st.trick) < len(play_order(st)):
        next_hand(st, hand)
        return
    best = st.table.winning(st.trick)
    lead = st.trick_hands[best]
    _trick_done(st, st.trick[best][0])
    st.trick_hands = []
    set_hand(st, lead)
    if len(st.tricks) == st.rules.hand_size:
        _end_hand(st)


def check_claim(st: State, ev, live: bool = False):
    """A claim made now is searched within the live budget (a quick answer); a logged one,
    replayed, within the larger one, so that every claim once accepted is verified again."""
    seat = _seat_of(st, ev)
    _need(st.rules.claims, N_("claims are not played in this game"))
    _need(st.phase == "play", N_("a claim can only be made during the play"))
    budget = LIVE_BUDGET if live else REPLAY_BUDGET
    _need(claim_holds(st, seat, budget),
          N_("the claim does not hold: the other side could still win a trick"))


def step_claim(st: State, ev):
    seat = ev["seat"]
    st.won[seat] += st.rules.hand_size - len(st.tricks)
    st.claimed_by = seat
    _end_hand(st)


def check_misdeal(st: State, ev):
    seat = _seat_of(st, ev)
    _need(st.misdeal_allowed(seat), N_("a misdeal can't be called with this hand now"))


def step_misdeal(st: State, ev):
    st.misdeals.append({"dealer": st.dealer, "seat": ev["seat"], "hand": st.hand_no + 1})
    st._clear_hand()
    st.phase = "deal"  # the same dealer deals again


def check_resign(st: State, ev):
    _seat_of(st, ev)  # any seat may resign (or forfeit on a timeout) while the game is on


def step_resign(st: State, ev):
    """The resigning seat's side loses the game at once; the best other side wins."""
    side = st.side_of[ev["seat"]]
    shown = st.display_scores()
    others = [i for i in range(len(st.sides)) if i != side]
    st.winner = max(others, key=lambda i: (shown[i], -i))
    st.resigned = ev["seat"]
    st.phase = "over"


def check_substitute(st: State, ev):
    _seat_of(st, ev)
    _need(isinstance(ev.get("out"), str) and isinstance(ev.get("in"), str)
          and ev["out"] != ev["in"], "a substitute names who leaves the seat (out) and who "
          "takes it (in)")


def step_substitute(st: State, ev):
    """Someone else plays the seat from here on: the cards, bids and tricks stay the seat's."""


def check_reveal(st: State, ev):
    rec = st.deal_record or {}  # (no deal yet: nothing to reveal)
    _need(st.phase in ("deal", "over"), "a deal's salt is revealed only once its hand is over")
    _need(bool(rec) and rec["commitment"] and ev.get("deal") == rec["seq"]
          and rec["seq"] not in st.reveals, "there is no committed deal to reveal")
    salt = ev.get("salt")
    _need(isinstance(salt, str) and deal_digest(rec, salt) == rec["commitment"],
          f"the salt does not match the commitment of the deal at seq {rec['seq']}")


def step_reveal(st: State, ev):
    st.reveals[ev["deal"]] = ev["salt"]
    st.revealed_deal = dict(st.deal_record or {}, salt=ev["salt"])  # public: its hand is over


def _end_hand(st: State):
    row = score_hand(st)
    st.history.append(row)
    st.last_deal = {"dealer": st.dealer, "hands": st.dealt, "out": st.out,
                    "discards": st.discards}
    if st.declarer is not None:  # T4
        st.last_deal.update(dummy=st.dummy_dealt, declarer=st.declarer)
    st.hand_no += 1
    st.winner = end_of_game(st, row)
    st._clear_hand()
    if st.winner is not None:
        st.phase = "over"
    else:
        st.dealer = (st.dealer + 1) % st.n
        st.phase = "deal"


EVENTS: dict[str, tuple[Callable[..., None], Callable[..., None]]] = {
    "deal": (check_deal, step_deal),
    "draw": (check_draw, step_draw),
    "look": (check_look, step_look),
    "bid": (check_bid, step_bid),
    "come_out": (check_comeout, step_come_out),
    "stay": (check_comeout, step_stay),
    "pass": (check_pass, step_pass),
    "play": (check_play, step_play),
    "claim": (check_claim, step_claim),
    "misdeal": (check_misdeal, step_misdeal),
    "reveal": (check_reveal, step_reveal),
    "resign": (check_resign, step_resign),
    "substitute": (check_substitute, step_substitute),
    "say": (check_say, step_say),
    "concede": (check_concede, step_concede),
    "undo": (check_undo, step_undo),
    "adjudicate": (check_adjudicate, step_adjudicate),
}


def check(st: State, ev: dict, live: bool = False) -> None:
    """Raise IllegalAction unless `ev` may come next. Changes nothing. `live`: a player
    acts now (a claim gets a quick answer), not a log being replayed."""
    if ev != st._checked:  # else apply() checked this very event at this very seq
        _check(st, ev, live)


def _check(st: State, ev: dict, live: bool = False) -> None:
    if not isinstance(ev, dict):
        raise IllegalAction("an event is a JSON object")
    if ev.get("seq") != st.seq + 1:
        raise IllegalAction(f"expected seq {st.seq + 1}, got {ev.get('seq')!r}")
    kind = ev.get("type")
    if st.phase == "over" and kind not in ("reveal", "adjudicate"):
        raise IllegalAction(N_("the game is over"))
    if kind.__class__ is not str or kind not in EVENTS:  # (a list or an object: no hash)
        raise IllegalAction(f"unknown event type {kind!r}")
    if kind == "claim" or kind == "undo":  # (a live claim is searched, a live undo asked
        EVENTS[kind][0](st, ev, live)  # whether its move showed a card)
        return
    EVENTS[kind][0](st, ev)


def advance(st: State, ev: dict) -> None:
    """Check `ev` and apply it to `st`."""
    if ev.__class__ is not dict or ev.get("type") != "play" or st.declarer is not None:
        if ev != st._checked:  # else apply() checked this very event at this very seq
            _check(st, ev)
        st._checked = None  # the same event again is checked again (and refused: its seq)
        _step(st, ev)
        return
    # most events: a card from the seat's own hand, stepped here with no call a card but
    # the trick's last (a Python call costs as many instructions as several of these lines)
    try:
        seq, seat, card = ev["seq"], ev["seat"], ev["card"]
    except KeyError:  # (not an event check would pass)
        seq = seat = card = None
    mark = st._checked  # apply() marks a card it checked by (seq, seat, card): the other
    if mark != (seq, seat, card) and ev != mark:  # keys do not change what check says
        _check(st, ev)
    st._checked = None
    hand, trick = st.hands[seat], st.trick
    at = hand.index(card)
    del hand[at]
    st.seq = seq
    # what acts._unplay cannot work out, kept to take the card back: where the card was in
    # the hand, with the lead it had to make, if any (the turn was the seat's; the trick,
    # the tricks and whether spades were broken follow from the cards played), and the card
    # alone for the move (acts.undoable); such a card shows no seat a card it did not see
    # (no dummy here; the hand's last card ends the hand), so acts.mark_shown is not asked
    st.undo_point = None if "auto" in ev and ev["auto"] else (
        seat, seq, at if st.must_lead is None else (at, st.must_lead), card)
    trick.append((seat, card))
    st.must_lead = None
    st.move_seq = st.last_moved[seat] = seq
    if not st.broken and st.table.suit[card] == "S":  # Y3: only a spade played on
        st.broken = st.table.suit[trick[0][1]] != "S"  # another suit's lead breaks spades
    if len(trick) < st.n:
        st.turn = (seat + 1) % st.n
    else:
        _trick_over(st, trick)


def _step(st: State, ev: dict) -> None:
    """Every event but a card from the seat's own hand: its step, then the counters."""
    kind, hand_no = ev["type"], st.hand_no
    shown = remember(st, ev)
    EVENTS[kind][1](st, ev)
    if st.hand_no != hand_no:  # the move ended the hand: it is scored and cannot come back
        st.undo_point = None
    elif shown is not None:
        mark_shown(st, shown)
    seq = st.seq = st.seq + 1
    if kind not in QUIET:
        st.move_seq = seq
        seat = ev.get("seat")
        if seat.__class__ is int and kind != "substitute":
            st.last_moved[seat] = seq
