"""How cards rank under a ruleset, and who wins a trick."""

from functools import lru_cache
from itertools import filterfalse

from .acts import BidKeep
from .bidlist import only_plain
from .cards import RANKS
from .frozen import Action
from .moon import clash_possible
from .rules import Rules


class CardTable:
    """Per ruleset: each card's suit for following (jokers and promoted cards are spades,
    D7) and its power (top trumps, then spades, then the rest by rank)."""

    def __init__(self, rules: Rules):
        self.suit = {}
        self.power = {}
        top = rules.top_trumps
        for card in set(rules.deck()):
            if card in top:
                self.suit[card] = "S"
                self.power[card] = 200 + len(top) - top.index(card)
            else:
                self.suit[card] = card[1]
                self.power[card] = RANKS.index(card[0]) + (100 if card[1] == "S" else 0)
        self.second_wins = rules.identical == "second"
        self.cancel = rules.identical == "cancel"
        # T6a, edition 2: a trick whose cards all cancel is dead, won by no one (taker())
        self.dead_tricks = self.cancel and rules.edition >= 2
        self.deck = tuple(rules.deck())
        self.sorted_deck = sorted(self.deck)
        # following suit is all there is to a card on a trick: no Y5 rake, no must-beat
        # and one pack (no identical cards to list once)
        self.follow_only = not (rules.rake or rules.must_beat) and rules.decks == 1
        self.first_trick_spades = rules.first_trick_spades
        # Y3 alone: spades may be led once broken, and only then (what spades_closed says
        # for these rules, asked without a call)
        self.lead_once_broken = rules.first_trick_spades and rules.spade_lead == "broken"
        # following suit and the spade lead are all that limit a card (state._may_play)
        self.plain_play = not (rules.must_beat or rules.rake or rules.dummy) \
            and rules.first_trick_spades
        # each suit's cards as a set: a hand is filtered by a set's __contains__, in C
        self.following = {s: frozenset(c for c in self.deck if self.suit[c] == s)
                          for s in "SHDC"}
        self.play_actions = {c: Action(type="play", card=c) for c in self.deck}
        self.action_of = self.play_actions.__getitem__  # (bound once, not at each call)
        self.action_if_any = self.play_actions.get  # (None: not a card of this deck)
        # following is all there is to a card on a trick, from the first trick on
        self.plain_follow = self.follow_only and rules.first_trick_spades
        self.follows = {s: cards.__contains__ for s, cards in self.following.items()}
        # following suit and the spade lead are all that limit a card, and no card is listed
        # twice: game.legal() picks its cards from a hand in C, by these lookups of each
        # suit's actions (None: a card of another suit)
        self.quick_cards = self.plain_play and rules.decks == 1
        action_if_suit = {s: {c: self.play_actions[c] for c in cards}.get
                          for s, cards in self.following.items()}
        self.action_if_led = {c: action_if_suit[self.suit[c]] for c in self.deck}  # by the
        # trick's first card
        self.action_if_not_spade = {c: a for c, a in self.play_actions.items()
                                    if self.suit[c] != "S"}.get
        self.bid_actions: dict[tuple, tuple] = {}  # bidlist.py's, by kind of seat
        self.bid_keep = BidKeep(rules)  # what a bid's undo point keeps (acts.py)
        # the rules' cached properties, read as plain attributes: Python (3.11) finds a
        # cached_property's value by a slow generic lookup every time
        self.hand_size, self.max_bid = rules.hand_size, rules.max_bid
        self.only_plain_bids = only_plain(rules)
        # no B4 side minimum, B8 total or B15 forced bids: every bid open fits
        self.free_bids = not (rules.side_min or rules.no_exact_total) \
            and rules.forced_bids == "none" and not clash_possible(rules)  # B10: a moon
        # bars a double nil (and so a nil) there
        # blind bids go by whether the side has looked, not the seat (B5, B3)
        self.side_unseen = rules.bidding == "side" or rules.blind_side_unseen
        # one pack: no two cards of a trick are alike, so the first card of the highest
        # power wins, by each led suit's table of power (-1: neither that suit nor a spade)
        self.one_pack = rules.decks == 1
        self.trick_power = {led: {c: p if self.suit[c] in (led, "S") else -1
                                  for c, p in self.power.items()}
                            for led in "SHDC"}

    def winning(self, trick) -> int:
        """Index into `trick` (a list of (seat, card)) of the card winning it so far.
        Every spade outranks every other suit (power 100 and up), so one comparison does."""
        if self.one_pack:  # the common case, in few steps (max() with a key costs more)
            power = self.trick_power[self.suit[trick[0][1]]]
            best = top = -1
            i = 0
            for _, card in trick:
                if power[card] > top:
                    best, top = i, power[card]
                i += 1
            return best
        if self.cancel:
            return self._winning_cancelled(trick)
        suit, power = self.suit, self.power
        led = suit[trick[0][1]]
        best, best_key = 0, power[trick[0][1]]
        for i in range(1, len(trick)):
            card = trick[i][1]
            s = suit[card]
            if s != led and s != "S":
                continue
            key = power[card]
            # equal power means the identical card of the other pack (T6a)
            if key > best_key or (key == best_key and self.second_wins):
                best, best_key = i, key
        return best

    def _winning_cancelled(self, trick) -> int:
        """T6a "both cancel": two identical cards on a trick win nothing; the best other
        card of the suit led (or trump) wins, and if none is left the leader is ahead (a
        finished trick of that kind is dead from edition 2: see taker())."""
        best = self._best_uncancelled(trick)
        return 0 if best is None else best

    def _best_uncancelled(self, trick) -> int | None:
        suit, power = self.suit, self.power
        led = suit[trick[0][1]]
        played = [c for _, c in trick]
        best, best_key = None, -1
        for i, card in enumerate(played):
            if played.count(card) > 1 or suit[card] not in (led, "S"):
                continue
            if power[card] > best_key:
                best, best_key = i, power[card]
        return best

    def taker(self, trick) -> int | None:
        """Index into a finished `trick` of the card that takes it, or None for a dead trick.
        Seed 004 (six players): "If identical cards are played in a round, they cancel and
        cannot take the trick. Tricks won by no one are "dead" and discarded." (edition 2;
        edition 1 gave such a trick to its leader)."""
        if self.dead_tricks:
            return self._best_uncancelled(trick)
        return self.winning(trick)

    def beats(self, card, trick) -> bool:
        """Would `card` win the trick if played now (T2a)."""
        return self.winning(trick + [(None, card)]) == len(trick)


@lru_cache(maxsize=64)
def table_for(rules: Rules) -> CardTable:
    return CardTable(rules)


def playable_cards(r, table, hand, trick, broken, done, must_lead) -> list[str]:
    """The cards of `hand` that may go on `trick` (Y2, Y3, T2a, Y5)."""
    suit = table.suit
    if trick and table.follow_only:  # the common case, in as few steps as it takes
        cands = list(filter(table.following[suit[trick[0][1]]].__contains__, hand))
        if cands or table.first_trick_spades or done:
            return cands or list(hand)
        return list(filterfalse(table.following["S"].__contains__, hand)) or list(hand)
    if not trick:
        if must_lead:
            return [must_lead]
        cands = hand
        if spades_closed(r, broken, done):
            cands = [c for c in hand if suit[c] != "S"] or hand
    else:
        led = suit[trick[0][1]]
        cands = [c for c in hand if suit[c] == led]
        if r.rake and trick[0][1] == "BJ" and cands:  # Y5: the big joker led
            top = max(table.power[c] for c in cands)  # takes everyone's highest spade
            cands = [c for c in cands if table.power[c] == top]
        if not cands:
            cands = hand
            if not r.first_trick_spades and not done:
                cands = [c for c in hand if suit[c] != "S"] or hand
        if r.must_beat:
            cands = [c for c in cands if table.beats(c, trick)] or cands
    if r.decks > 1:
        return list(dict.fromkeys(cands))
    return list(cands) if cands is hand else cands


def breaks_spades(table, trick) -> bool:
    """Did the trick's last card break spades? Only a spade played on another suit's lead
    does (Y3): a leader holding only spades may lead one and leaves spades unbroken."""
    suit = table.suit
    return suit[trick[-1][1]] == "S" and suit[trick[0][1]] != "S"


def spades_closed(r, broken, done) -> bool:
    """May a spade not be led now? (Y3 broken, Y3a any time, Y3b after three tricks, Y3c)"""
    if not r.first_trick_spades and not done:
        return True
    if r.spade_lead == "any":
        return False
    if r.spade_lead == "after3":
        return done < 3 and not broken
    return not broken
