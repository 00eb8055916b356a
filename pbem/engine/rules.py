"""A ruleset: frozen data, every option with a default, presets by name (docs/rules.md).

The defaults are the `standard` preset. Each option says which catalogue IDs it plays;
docs/rules.md maps every ID to its option and test.
"""

import dataclasses
import json
from dataclasses import dataclass, field, fields
from functools import cached_property

from .cards import JOKERS, SUITS, all_cards, is_card
from .errors import RulesError

NILS = ("nil", "blind nil")  # the bids that promise no trick
MOONS = ("moon", "blind moon")  # B10: the bids that promise every trick to the side
# S4, S4a, S4b, S4c; "bags_unless_set": bags, but scoring no point when the side is set
NIL_FAIL_MODES = ("bags", "help", "set_partner", "nothing", "bags_unless_set")
# B12: call -> (the first tricks the side must win, points made or lost). Bemo is added to
# the bid (pagat); Mo's side also leads the first trick and takes no bags (the encyclopedia).
# The rules' editions: 1 as played before issue 33; 2 follows the seeds in T6a (a trick whose
# identical cards all cancel is dead), S3 (no bag cancelled for a side whose bid is lost),
# B10 (a moon side takes its bonuses; no moon against a double nil), B15 (no raise of a
# forced bid) and B14 (only the no-trump bidder's own bid counts double).
EDITION = 2
MO_CALLS = {
    "bemo": {"little bemo": (6, 60), "big bemo": (9, 90)},
    "mo": {"little mo": (7, 150), "big mo": (10, 250)},
}


@dataclass(frozen=True)
class Rules:
    preset: str = "standard"
    # which reading of the seed texts the game plays (EDITION, docs/rules.md "Editions"): a
    # game keeps the edition it began with, so an old log replays as it was played
    edition: int = EDITION
    # who plays for an empty seat: the robot's level, "easy", "medium" or "hard" (engine/
    # robot.py); "fast" and "sampler" are the old names of easy and medium, kept as written
    robot: str = "fast"
    # T: table
    players: int = 4  # T1 T2 T3 T5 T6
    partnerships: bool = True  # T1: partners opposite; False: everyone for themselves (T2)
    must_beat: bool = False  # T2a: beat the highest card so far if able
    dummy: bool = False  # T4: a fourth hand, exposed, played by the highest bidder (dummy.py)
    # D: deck and trumps
    decks: int = 1  # T6: two packs
    jokers: bool = False  # D2
    remove: tuple[str, ...] = ()  # D2, T6: cards taken out of each pack
    top_trumps: tuple[str, ...] = ()  # D3 D4 D5 D7: above the ace of spades, high to low
    leftover: str = "none"  # "none" or "out": cards left after the deal lie aside unseen (T3,
    # D6); "dealer" or "two_clubs": that seat takes them and discards as many (D6);
    # "high_side": the side that bid more takes them after the bidding, and discards (D6)
    leftover_after_bid: bool = False  # D6: the dealer's or 2C holder's discard waits for
    # the end of the bidding (pagat: "the discard takes place after the bidding")
    identical: str = "second"  # T6a: of two identical cards the "second" or the "first" wins,
    # or "cancel": neither does (the best other card wins; none left: the leader)
    # L: deal
    deal: str = "deal"  # "deal", or "draw": the two-handed draw phase (T5b)
    draw_two: bool = False  # T5a: the drawer sees both top cards, then keeps one
    misdeal: tuple[str, ...] = ()  # L2 tests: no_spades, one_spade, no_faces, long_suit
    misdeal_before: str = "side_bids"  # L2: until the caller's "side_bids", or "bidding" starts
    # P: passing
    pass_to_partner: int = 0  # P1: cards each passes to partner before bidding
    pass_to: str = "partner"  # P4: that pass goes to "partner", or the opponent "left"/"right"
    nil_exchange: int = 0  # P2: cards a nil bidder and partner swap after bidding
    blind_nil_exchange: int = 2  # P2
    blind_nil_exchange_optional: bool = True  # P2: the blind nil bidder may keep its cards
    double_nil_exchange: int = 0  # P3: each partner passes this many when both bid nil
    # B: bidding
    bidding: str = "seat"  # B1 "seat": each seat bids; B5 "side": each side agrees one number
    bid_order: str = "left"  # B1 "left" of dealer; B1a "dealer" first; "side": non-dealers first
    bid_min: int = 1  # smallest number a seat (or side, B5) may bid; 0 with nil=False is B2a
    bid_max: int = 0  # largest; 0 means the number of tricks
    side_min: int = 0  # B4: a side's bids must add up to this, unless all its seats bid nil
    no_exact_total: bool = False  # B8: bids must not add up to the number of tricks
    no_trump: bool = False  # B14: a number bid may promise no trick won by a spade (double)
    raise_round: bool = False  # B7: once all have bid, each may raise its bid by one
    nil: bool = True  # B2
    blind_nil: bool = True  # B3
    blind_nil_behind: int = 100  # B3: blind nil only when the side trails by this much
    blind_side_unseen: bool = False  # B3: blind bids only while neither partner has looked
    blind_min: int = 0  # B6: blind bids of at least this many; 0 means none
    blind_behind: int = 0  # B6: blind bids only when the side trails by this much
    blind_lost: str = "double"  # B6: a lost blind bid costs "double" or "single"
    blind_exact: bool = False  # B6: a blind bid is made only with exactly the tricks bid
    blind_come_out: bool = False  # S9: after a blind bid the side may come out to 10 for 200
    ten_for: int = 0  # B9: points for a made bid of 10 or more (0: off); lost costs the same
    ten_for_exact: bool = False  # B9: only exactly 10 tricks makes it
    double_nil: tuple[int, int, int] | None = None  # B11 S6: both made / one made / both failed
    double_nil_bonus: int = 0  # B11 (pagat): the opponents' bonus when both partners fail
    double_nil_ends: bool = False  # B11: a made double nil wins the game, a failed one loses
    blind_double_nil_ends: bool = False  # B11: the same for a double blind nil only
    first_hand_unbid: bool = False  # B13: the first hand scores 10 a trick, no bidding
    moon: int = 0  # B10: points for a made moon (all the tricks); lost costs the same; 0: off
    blind_moon: int = 0  # B10: the same, bid before either partner looks (400); 0: off
    moon_wins: bool = False  # B10: a made moon (or blind moon) wins the game
    mo: str = "none"  # B12: a side may add "bemo" or "mo" to a bid (MO_CALLS)
    forced_bids: str = "none"  # B15: "whiz", "mirror" or "suicide" (see forced.py)
    # Y: play
    first_lead: str = "left"  # Y1 "left" of dealer; Y1a "dealer"; Y1b "low_club": lowest club
    spade_lead: str = "broken"  # Y3 "broken"; Y3a "any"; Y3b "after3"
    first_trick_spades: bool = True  # Y3c False: no spade on the first trick unless nothing else
    rake: bool = False  # Y5 rake 'em and shake 'em: on a big joker lead, your highest spade
    claims: bool = True  # Y6
    # S: scoring
    contract: str = "standard"  # S1 "standard"; S8 "cutthroat"; S9 "nyc"
    overtrick_points: int = 1  # S1; S3: -1, 0, or -10 a bag
    bag_limit: int = 10  # S2; 0: no penalty (S3)
    bag_penalty: int = 100  # S2
    bag_overflow: str = "carry"  # S2 "carry" the surplus, "reset" the count to zero, or
    # "carry_once": at most one penalty a hand, the surplus carried
    bags_in_score: bool = False  # S3 "kept apart": the units digit of the score counts bags
    set_by_shortfall: bool = False  # S3: a set costs 10 a missing trick, not 10 a trick bid
    twice_bid_loses: bool = False  # S3: taking twice the bid loses the bid
    bag_cancel_card: str = ""  # S3: the side that takes this card in a trick has a bag less
    nil_points: int = 100  # S4
    nil_fail: str = "bags"  # S4: failed nil tricks are "bags", "help", "set_partner", "nothing"
    blind_nil_points: int = 200  # S5
    blind_nil_penalty: int = 200  # S5a: half
    high_bid_bonus: bool = False  # S7: a made bid of 7+ earns 10 a trick bid above 6
    last_spades_bonus: int = 0  # S7: a trick for the last tricks won with spades 9+ (10)
    last_trick_bonus: int = 0  # S7: points for winning the last trick (10)
    aces_bonus: int = 0  # S7: a side that announces the four aces and wins them (100)
    # E: end
    target: int = 500  # E1
    floor: int | None = None  # E2: a side at or below this loses
    sets_to_lose: int = 0  # E3: sets in a row that lose the game; 0: off
    boston_wins: bool = False  # E3: a made bid of 10 with all tricks wins the game
    max_hands: int = 0  # E4: the game ends after this many hands (0: no limit)
    sides: tuple = field(default=(), init=False, compare=False, repr=False)  # derived

    def __post_init__(self):
        _check(self)
        object.__setattr__(self, "sides", _sides(self))

    # -- derived --------------------------------------------------------------
    @cached_property
    def hand_size(self) -> int:
        per_seat = len(self.deck()) // self.hands
        return per_seat // 2 if self.deal == "draw" else per_seat  # T5: keep one of two

    @cached_property
    def hands(self) -> int:
        """The hands dealt: one a player, and the dummy's (T4)."""
        return self.players + self.dummy

    @cached_property
    def max_bid(self) -> int:
        return self.bid_max or self.hand_size

    @cached_property
    def any_bonus(self) -> bool:
        """Does an S7 bonus (bonuses.py) score under these rules?"""
        return bool(self.high_bid_bonus or self.last_spades_bonus or self.last_trick_bonus
                    or self.double_nil_bonus or self.aces_bonus)

    def deck(self) -> list[str]:
        """Every card in play, each pack's copy listed (two packs: cards appear twice)."""
        one = [c for c in all_cards() if c not in self.remove]
        if self.jokers:
            one = list(JOKERS) + one
        return one * self.decks

    @cached_property
    def _options(self) -> tuple[dict, tuple]:
        """Every option (not the derived sides) by name, and the names of those that are
        tuples: the rules never change, so `to_dict` (every view asks it) need not walk the
        dataclass's fields again."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "sides"}
        return out, tuple(k for k, v in out.items() if isinstance(v, tuple))

    def to_dict(self) -> dict:
        """The options as JSON data: a new dict, tuples as new lists, each time (callers
        keep it, and may change it)."""
        plain, tuples = self._options
        out = dict(plain)
        for k in tuples:
            out[k] = list(out[k])
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: object) -> "Rules":
        """A ruleset from JSON data: the named preset with any options overridden (anything
        but an object: RulesError)."""
        if not isinstance(data, dict):
            raise RulesError("rules must be an object of options")
        name = data.get("preset", "standard")
        base = preset(name)
        return base.with_options(**{k: v for k, v in data.items() if k != "preset"})

    @classmethod
    def stored(cls, data: object) -> "Rules":
        """A ruleset a game, league or log stored: one stored before editions were recorded
        names none, and keeps edition 1 (what it was played under)."""
        if isinstance(data, dict) and "edition" not in data:
            data = {**data, "edition": 1}
        return cls.from_dict(data)

    def with_options(self, **options) -> "Rules":
        known = {f.name: f for f in fields(self) if f.name != "sides"}
        clean = {}
        for key, value in options.items():
            if key not in known:
                raise RulesError(f"unknown option {key!r}")
            clean[key] = _coerce(key, value, getattr(self, key))
        return dataclasses.replace(self, **clean)


def promised(bid, hand_size: int) -> int:
    """The tricks a bid promises: none for nil, every one for a moon (B10)."""
    if bid in NILS:
        return 0
    return hand_size if bid in MOONS else bid


def _coerce(key, value, current):
    """Bring a JSON or command-line value to the type of the option it sets."""
    if isinstance(current, tuple) or (key == "double_nil"):
        if value is None and key == "double_nil":
            return None
        if isinstance(value, str):
            value = [v for v in value.replace(",", " ").split() if v]
        if not isinstance(value, list | tuple):
            raise RulesError(f"option {key!r} takes a list, not {value!r}")
        return tuple(int(v) if key == "double_nil" else v for v in value)
    if isinstance(current, bool):
        if isinstance(value, str) and value.lower() in ("true", "yes", "1", "false", "no", "0"):
            return value.lower() in ("true", "yes", "1")
        if not isinstance(value, bool):
            raise RulesError(f"option {key!r} is true or false, not {value!r}")
        return value
    if isinstance(current, int) or key == "floor":
        if value is None and key == "floor":
            return None
        try:
            if isinstance(value, bool):
                raise ValueError
            return int(value)
        except (TypeError, ValueError):
            raise RulesError(f"option {key!r} takes a whole number, not {value!r}") from None
    if not isinstance(value, str):
        raise RulesError(f"option {key!r} takes a word, not {value!r}")
    return value


_CHOICES = {
    "robot": ("fast", "sampler", "easy", "medium", "hard"),
    "leftover": ("none", "out", "dealer", "two_clubs", "high_side"),
    "identical": ("second", "first", "cancel"),
    "deal": ("deal", "draw"),
    "misdeal_before": ("side_bids", "bidding"),
    "bidding": ("seat", "side"),
    "bid_order": ("left", "dealer", "side"),
    "blind_lost": ("double", "single"),
    "first_lead": ("left", "dealer", "low_club"),
    "spade_lead": ("broken", "any", "after3"),
    "contract": ("standard", "cutthroat", "nyc"),
    "bag_overflow": ("carry", "reset", "carry_once"),
    "nil_fail": NIL_FAIL_MODES,
    "mo": ("none", "bemo", "mo"),
    "pass_to": ("partner", "left", "right"),
    "forced_bids": ("none", "whiz", "mirror", "suicide"),
}
MISDEAL_TESTS = ("no_spades", "one_spade", "no_faces", "long_suit")
# The range of each number option (docs/rules.md, "Ranges"): games that real tables play,
# and no more. A target of 1000 keeps even a game of four robots to a few hundred moves.
BOUNDS = {
    "target": (50, 1000), "floor": (-1000, 0), "max_hands": (0, 100),
    "sets_to_lose": (0, 10), "bag_limit": (0, 20), "bag_penalty": (0, 1000),
    "overtrick_points": (-10, 10), "nil_points": (0, 1000), "blind_nil_points": (0, 1000),
    "blind_nil_penalty": (0, 1000), "ten_for": (0, 1000), "blind_nil_behind": (-1000, 1000),
    "blind_behind": (-1000, 1000), "pass_to_partner": (0, 4), "nil_exchange": (0, 4),
    "blind_nil_exchange": (0, 4), "double_nil_exchange": (0, 4), "side_min": (0, 26),
    "moon": (0, 1000), "blind_moon": (0, 1000), "last_spades_bonus": (0, 100),
    "last_trick_bonus": (0, 100), "aces_bonus": (0, 1000), "double_nil_bonus": (0, 1000),
    "edition": (1, EDITION),
}


def _check(r: Rules) -> None:
    """Refuse an impossible combination, saying which options and why."""

    def bad(msg):
        raise RulesError(msg)

    for key, choices in _CHOICES.items():
        if getattr(r, key) not in choices:
            bad(f"option {key!r} must be one of {', '.join(choices)}, not {getattr(r, key)!r}")
    for key, (lo, hi) in BOUNDS.items():
        value = getattr(r, key)
        if value is not None and not lo <= value <= hi:
            bad(f"option {key!r} runs from {lo} to {hi}, not {value}")
    if r.double_nil is not None and not all(-1000 <= v <= 1000 for v in r.double_nil):
        bad("option 'double_nil' takes three numbers from -1000 to 1000")
    for key in ("remove", "misdeal"):
        if len(set(getattr(r, key))) != len(getattr(r, key)):
            bad(f"option {key!r} names something twice")
    if r.players not in (2, 3, 4, 5, 6):
        bad("players must be 2, 3, 4, 5 or 6")
    if r.players == 5 and r.partnerships:
        bad("five players (T7) play without partners: set partnerships=false")
    if r.decks not in (1, 2):
        bad("decks must be 1 or 2")
    for c in r.remove + r.top_trumps:
        if not is_card(c):
            bad(f"{c!r} is not a card")
    if any(c in JOKERS for c in r.remove):
        bad("remove names cards of the pack; jokers come in with jokers=true")
    deck = r.deck()
    for c in r.top_trumps:
        if c not in deck:
            bad(f"top trump {c} is not in the deck")
    if len(set(r.top_trumps)) != len(r.top_trumps):
        bad("top_trumps names a card twice")
    if r.jokers and r.top_trumps[:2] != JOKERS:
        bad("with jokers, top_trumps must start with BJ, LJ (D2)")
    if r.decks == 1 and r.jokers and r.top_trumps and any(c in r.remove for c in r.top_trumps):
        bad("a removed card cannot be a top trump")
    _check_dummy(r, bad)
    spare = len(deck) % r.hands
    if spare and r.leftover == "none":
        bad(f"{len(deck)} cards do not deal evenly to {r.hands} hands: set leftover=out")
    if r.leftover == "high_side" and (not r.partnerships or r.players != 4 or spare % 2):
        bad("leftover=high_side gives the cards to the side that bid more: two sides of "
            "partners (players=4) and an even number of cards left over")
    if r.leftover_after_bid and r.leftover not in ("dealer", "two_clubs"):
        bad("leftover_after_bid moves the dealer's or 2C holder's discard: set leftover="
            "dealer or two_clubs")
    if r.deal == "draw" and r.players != 2:
        bad("the draw phase (deal=draw) is for two players")
    if r.players == 2 and r.deal != "draw":
        bad("two players draw their hands: set deal=draw")
    if r.partnerships and r.players not in (4, 6):
        bad("partnerships need 4 or 6 players")
    if not r.partnerships:
        for key in ("pass_to_partner", "side_min", "double_nil_exchange", "blind_side_unseen"):
            if getattr(r, key) and not (key == "pass_to_partner" and r.pass_to != "partner"):
                bad(f"option {key!r} needs partnerships")
        if r.bidding == "side" or r.bid_order == "side" or r.double_nil:
            bad("side bidding, side bid order and double nil need partnerships")
        if r.blind_nil and r.blind_nil_exchange:
            bad("a blind nil exchange needs a partner: set blind_nil_exchange=0")
        if r.nil and r.nil_exchange:
            bad("a nil exchange needs a partner: set nil_exchange=0")
    if r.bidding == "side" and (r.nil or r.blind_nil or r.side_min):
        bad("side bidding (B5) has no nil and no per-seat minimum: bid_min sets the side's")
    if r.blind_nil and not r.nil:
        bad("blind nil needs nil")
    if r.double_nil is not None and (len(r.double_nil) != 3 or not r.nil):
        bad("double_nil is three numbers (both made, one made, both failed) and needs nil")
    for key in ("double_nil_ends", "blind_double_nil_ends"):
        if getattr(r, key) and r.double_nil is None:
            bad(f"option {key!r} needs double nil scoring: set double_nil (e.g. 500,-250,-250)")
    if r.blind_double_nil_ends and not r.blind_nil:
        bad("blind_double_nil_ends needs blind nil")
    if r.leftover != "none" and r.deal == "draw":
        bad("the draw phase uses every card")
    hs = r.hand_size
    if not 0 <= r.bid_min <= (r.bid_max or hs) <= hs * (2 if r.bidding == "side" else 1):
        bad("bids must run from bid_min up to bid_max, within the number of tricks")
    if r.bid_min == 0 and r.nil:
        bad("with nil, a bid of 0 is nil: bid_min must be at least 1 (B2); set nil=false for B2a")
    if r.blind_min and not r.bid_min <= r.blind_min <= (r.bid_max or hs):
        bad("blind_min must lie within the bids allowed")
    if r.blind_come_out and not r.blind_min:
        bad("blind_come_out needs blind bids (blind_min)")
    for t in r.misdeal:
        if t not in MISDEAL_TESTS:
            bad(f"misdeal test {t!r} is not one of {', '.join(MISDEAL_TESTS)}")
    if r.first_lead == "low_club" and not any(c[1] == "C" for c in deck if c not in JOKERS):
        bad("first_lead=low_club needs clubs in the deck")
    if r.pass_to_partner and r.deal == "draw" and r.pass_to == "partner":
        bad("passing needs a partner")
    if r.contract == "nyc" and r.bidding != "side":
        bad("nyc scoring (S9) goes with side bidding")
    if r.bags_in_score and r.overtrick_points:
        bad("bags_in_score counts bags in the units digit: set overtrick_points=0 (S3)")
    _check_forced(r, bad)
    if r.bag_cancel_card and (r.bag_cancel_card not in deck or r.decks != 1):
        bad(f"bag_cancel_card {r.bag_cancel_card!r} must be a card of the (one) pack in play")
    if r.aces_bonus and r.decks != 1:
        bad("aces_bonus counts the four aces of one pack: decks=1")
    if r.draw_two and r.deal != "draw":
        bad("draw_two (T5a) is a way to draw: set deal=draw")
    if r.rake and not r.jokers:
        bad("rake (Y5) is played when the big joker is led: set jokers=true")
    if r.moon_wins and not (r.moon or r.blind_moon):
        bad("moon_wins needs moon bids: set moon (e.g. 200) or blind_moon (e.g. 400)")
    assert set(SUITS) == {"S", "H", "D", "C"}


def _check_dummy(r: Rules, bad) -> None:
    """T4: three people each for themselves, one pack dealt in four hands; nothing that
    needs a partner, a fifth pile, a claim search or the sampler's model of the hands."""
    if not r.dummy:
        return
    if r.players != 3 or r.partnerships or r.decks != 1 or r.deal != "deal":
        bad("dummy (T4) is for three players without partners (players=3, "
            "partnerships=false), one pack dealt in four hands")
    if r.leftover not in ("none", "out"):
        bad("dummy (T4): cards left over lie aside (leftover=out)")
    if r.claims or r.robot not in ("fast", "easy") or r.first_hand_unbid or r.mo != "none":
        bad("dummy (T4) is played with claims=false, robot=fast, no first_hand_unbid and "
            "mo=none")


def _check_forced(r: Rules, bad) -> None:
    """B15: a forced bid must always be open, so nothing else may narrow the bids."""
    if r.forced_bids == "none":
        return
    name = f"forced_bids={r.forced_bids}"
    if r.bidding != "seat" or r.blind_min or r.no_exact_total:
        bad(f"{name} needs seat bidding, no blind number bids (blind_min=0) and no "
            "no_exact_total")
    if r.forced_bids == "mirror":
        if r.blind_nil or not (r.nil or r.bid_min == 0):
            bad(f"{name}: a seat with no spades bids nil (or 0 with bid_min=0); no blind nil")
    elif not r.nil:
        bad(f"{name} needs nil")
    if r.forced_bids == "suicide":
        if not r.partnerships or r.double_nil is not None:
            bad(f"{name} needs partnerships (one partner bids nil) and no double_nil")
        if r.side_min > r.max_bid:
            bad(f"{name}: one partner bids the side's minimum alone: side_min up to bid_max")
    elif r.side_min:
        bad(f"{name} bids the spades held: set side_min=0")
    # seed 004: "each player must bid the exact number of spades in their hand or go Nil"
    if r.edition >= 2 and r.raise_round and r.forced_bids in ("whiz", "mirror"):
        bad(f"{name} bids the spades held, which a raise round would change: "
            "set raise_round=false")


def _sides(r: Rules) -> tuple[tuple[int, ...], ...]:
    if not r.partnerships:
        return tuple((s,) for s in range(r.players))
    half = r.players // 2
    return tuple((s, s + half) for s in range(half))


_TOURNAMENT = dict(
    jokers=True, remove=("2H", "2D"), top_trumps=("BJ", "LJ", "2S"),
    bid_order="side", side_min=4, blind_nil_exchange=0, blind_side_unseen=True,
    misdeal=("no_faces", "no_spades"),
    misdeal_before="bidding", nil_fail="nothing",
    # games played for results: a stand-in plays its best; its 8-50 ms a card is decided
    # outside the write transaction (pbem.play.move_robots), so it holds no lock
    robot="sampler",
)

PRESETS: dict[str, dict] = {
    "standard": {},
    "tournament-300": dict(
        _TOURNAMENT, nil_points=60, blind_nil_points=120, blind_nil_penalty=120,
        double_nil=(120, 0, -120), ten_for=120, bag_limit=6, bag_penalty=60,
        bag_overflow="reset", target=300,
    ),
    "tournament-500": dict(
        _TOURNAMENT, double_nil=(200, 0, -200), ten_for=200, bag_overflow="reset",
    ),
    "barmore": dict(
        jokers=True, remove=("2C", "2H"), top_trumps=("BJ", "LJ", "2S"), bidding="side",
        nil=False, blind_nil=False, blind_min=7, first_lead="dealer", spade_lead="any",
    ),
    "nyc": dict(
        jokers=True, remove=("2H", "2C"), top_trumps=("BJ", "LJ", "2D", "2S"), bidding="side",
        nil=False, blind_nil=False, bid_min=4, bid_max=10, blind_min=6, blind_behind=100,
        blind_lost="single", blind_come_out=True, spade_lead="after3", contract="nyc",
        bag_limit=0, first_hand_unbid=True, sets_to_lose=2, boston_wins=True,
    ),
    "cutthroat-3": dict(
        players=3, partnerships=False, leftover="out", first_lead="low_club", nil=False,
        blind_nil=False, blind_nil_exchange=0, bid_min=0, contract="cutthroat", bag_limit=0,
        target=300,
    ),
    "cutthroat-4": dict(partnerships=False, must_beat=True, blind_nil=False,
                        blind_nil_exchange=0),
    # T4 (pagat: Dan Corkill's 'Dummy Hand' Spades): four hands of 13, the highest bidder
    # plays the exposed dummy; scored as cutthroat-3 (the seed gives no scoring)
    "dummy-3": dict(
        players=3, partnerships=False, dummy=True, nil=False, blind_nil=False,
        blind_nil_exchange=0, bid_min=0, contract="cutthroat", bag_limit=0, target=300,
        claims=False,
    ),
    "two-handed": dict(players=2, partnerships=False, deal="draw", blind_nil=False,
                       blind_nil_exchange=0),
    "six-handed": dict(players=6, decks=2, remove=("2D",)),
    # B15 (docs/rules.md; not in the source texts): every seat bids its spades or nil, no blind nil
    "whiz": dict(forced_bids="whiz", blind_nil=False, blind_nil_exchange=0),
    # B15: one partner of each side bids nil, the other at least 4 (the B4 minimum)
    "suicide": dict(forced_bids="suicide", side_min=4, blind_nil=False, blind_nil_exchange=0),
    # B12 (the encyclopedia's "Big Mo, Little Mo"): first 7 tricks for 150, first 10 for 250
    "mo": dict(mo="mo"),
}


def preset(name: str) -> Rules:
    """The named preset's ruleset."""
    if name not in PRESETS:
        raise RulesError(f"unknown preset {name!r}: one of {', '.join(PRESETS)}")
    return Rules(preset=name, **PRESETS[name])
