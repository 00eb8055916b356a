"""Scoring a finished hand (S1-S9) and deciding whether the game is over (E1-E4).

Bags live in their own counter (docs/rules.md "Traps"): never read from a score's last digit.
"""

from .bonuses import bonuses
from .mo import mo_immune, mo_result
from .moon import moon_score
from .notrump import no_trump_kept
from .rules import NILS


def score_hand(st) -> dict:
    """Score the hand just played into `st` and return its score pad row."""
    row = {"hand": st.hand_no + 1, "dealer": st.dealer, "sides": []}
    if st.claimed_by is not None:
        row["claimed_by"] = st.claimed_by
    if st.table.dead_tricks:  # T6a: tricks won by no one, so the sides' tricks add up
        dead = sum(1 for _, w in st.tricks if w is None)
        if dead:
            row["dead"] = dead
    for i, side in enumerate(st.sides):
        res = _score_side(st, i, side)
        penalty = _bag_penalty(st, i, res["bags"])
        st.scores[i] += res["points"] - penalty
        st.sets_in_row[i] = st.sets_in_row[i] + 1 if res["set"] else 0
        res["bag_penalty"] = penalty
        res["score"] = st.display_scores()[i]
        res["total_bags"] = st.bags[i]
        row["sides"].append(res)
    return row


def _score_side(st, i, side) -> dict:
    r = st.rules
    bids, won = st.bids, st.won
    tricks_all = sum(map(won.__getitem__, side))  # (in C: no generator a side)
    res = {"seats": list(side), "tricks": tricks_all}
    if st.unbid:  # B13: the first hand is not bid, 10 a trick
        res["bid"], res["points"], res["bags"], res["set"] = None, 10 * tricks_all, 0, False
        return res
    if r.moon or r.blind_moon:  # B10: a moon is the side's whole contract
        moon = moon_score(st, i, side)
        if moon:
            res.update(moon)
            if r.edition >= 2 and (r.any_bonus or st.mo is not None):
                # its bonuses too (S7: "the winner of last trick wins 10 bonus points"), but
                # none of a number bid's: the moon's own value pays for taking every trick
                _add_calls_and_bonuses(st, i, side, res, 0, tricks_all, False)
            return res
    # the nil bidders apart, and the others' bids, blind bids and tricks: one loop (a
    # comprehension or generator a total costs a call each)
    nils, numeric, bid, tricks, blind = [], [], 0, 0, False
    for s in side:
        if bids[s] in NILS:
            nils.append(s)
            continue
        numeric.append(s)
        if bids[s] is not None:
            bid += bids[s]
        tricks += won[s]
        blind = blind or st.blind[s]
    points, bags, forced_set = 0, 0, False
    if nils:
        failed = [s for s in nils if won[s]]
        if r.double_nil is not None and len(nils) == len(side) > 1:
            points += r.double_nil[len(failed)]  # S6: both made / one made / both failed
            res["double_nil"] = {"made": not failed, "failed": len(failed),
                                 "blind": all(bids[s] == "blind nil" for s in nils)}
        else:
            for s in nils:
                blind_nil = bids[s] == "blind nil"
                if won[s] == 0:
                    points += r.blind_nil_points if blind_nil else r.nil_points
                else:
                    points -= r.blind_nil_penalty if blind_nil else r.nil_points
        lost = sum(won[s] for s in failed)
        if r.nil_fail in ("bags", "bags_unless_set"):  # S4
            bags += lost
        elif r.nil_fail == "help":  # S4a
            tricks += lost
        elif r.nil_fail == "set_partner":  # S4b
            forced_set = bool(failed)
        res["nils"] = [{"seat": s, "bid": bids[s], "made": won[s] == 0} for s in nils]
    made_set = False
    if numeric:
        # B14: a broken promise loses the contract (no call when nobody bid no trump)
        kept = no_trump_kept(st, side) if st.no_trump else None
        contract, over, made_set, extra = _contract(st, i, bid, tricks, blind,
                                                    forced_set or kept is False)
        if kept is not None:  # double both ways
            contract, res["no_trump"] = _no_trump_value(st, side, bid, contract), kept
        points += contract
        bags += over
        if extra:
            res.update(extra)
    scored = bags
    if r.nil_fail == "bags_unless_set" and made_set and nils:  # counted, but worth nothing
        scored -= sum(won[s] for s in failed)
    # S3, pagat: "If the side ... loses their bid, the special card has no effect": a side
    # of nil bids alone has lost its bid once one of them failed (edition 1 missed this)
    lost = made_set or (r.edition >= 2 and not numeric and any(won[s] for s in nils))
    if bags and not lost and r.bag_cancel_card and _took_cancel_card(st, side):  # S3
        bags, scored = bags - 1, scored - 1  # one bag less
        res["bag_cancelled"] = True
    if st.mo is not None and mo_immune(st, i):  # B12: a side that called Mo takes no bags
        bags = scored = 0
    points += scored * r.overtrick_points
    # (item by item: update() with keywords builds a dict to read)
    res["bid"], res["points"], res["bags"], res["set"] = bid if numeric else 0, points, bags, \
        made_set
    if r.any_bonus or st.mo is not None:
        _add_calls_and_bonuses(st, i, side, res, bid, tricks, bool(numeric) and not made_set)
    if blind:
        res["blind"] = True
    return res


def _no_trump_value(st, side, bid, contract) -> int:
    """B14: the contract's points with the no-trump bids doubled. pagat: "The value of the
    bid is double that of a normal bid for that number of tricks if won; the penalty is if
    you lose is double the penalty for a normal bid": the no-trump bidder's bid counts
    twice, a partner's plain bid once (edition 1 doubled the whole contract)."""
    own = sum(st.bids[s] for s in side if s in st.no_trump)
    if st.rules.edition < 2 or own >= bid:
        return 2 * contract
    return contract + (10 * own if contract > 0 else -10 * own)


def _took_cancel_card(st, side) -> bool:
    """pagat: "a special card which cancels one sandbag on that hand for the side that
    takes it in their tricks. If the side ... makes no overtricks, or loses their bid, the
    special card has no effect." A fixed card (the seed's "three of spades"), asked only
    when the rules name one."""
    card = st.rules.bag_cancel_card
    if st.claimed_by in side and any(card in h for h in st.hands):
        return True  # still in a hand: the claimer takes it
    return any(w in side and any(c == card for _, c in cards) for cards, w in st.tricks)


def _add_calls_and_bonuses(st, i, side, res, bid, tricks, made):
    """S7 bonuses and a B12 Mo or Bemo call: points on top of the contract, no bags."""
    extra = bonuses(st, i, side, bid, tricks, made)
    if extra:
        res["bonus"], res["points"] = extra, res["points"] + sum(extra.values())
    mo = mo_result(st, i) if st.mo is not None else None
    if mo:
        res["mo"], res["points"] = mo, res["points"] + mo["points"]


def _contract(st, side, bid, tricks, blind, forced_set):
    """(points, overtricks, set?, extra pad fields) for a side's numeric contract."""
    r = st.rules
    if r.contract == "nyc":
        return _nyc(st, side, bid, tricks, blind)
    made = tricks >= bid and not forced_set
    if made and r.twice_bid_loses and bid and tricks >= 2 * bid:
        made = False
    if r.contract == "cutthroat":  # S8: each overtrick takes 10 off the contract
        return (10 * bid - 10 * (tricks - bid), 0, False, {}) if made else (-10 * bid, 0, True, {})
    if r.ten_for and bid >= 10:  # B9
        if r.ten_for_exact:
            made = made and tricks == 10
        return (r.ten_for, tricks - bid, False, {}) if made else (-r.ten_for, 0, True, {})
    mult = 2 if blind else 1  # B6
    if blind and r.blind_exact:  # pagat's blind 6: "if the side takes exactly 6 tricks"
        made = made and tricks == bid
    if made:
        return 10 * bid * mult, tricks - bid, False, {}
    loss = 10 * (bid - tricks) if r.set_by_shortfall and tricks < bid else 10 * bid
    if blind and r.blind_lost == "double":
        loss *= 2
    return -loss, 0, True, {}


def _nyc(st, side, bid, tricks, blind):
    """S9: bids 4-9 made with at most two overtricks, 10 for 200, blind doubles if made."""
    extra = {"came_out": True} if st.came_out[side] else {}
    value = 200 if bid == 10 else 10 * bid
    if tricks == st.rules.hand_size and bid >= 10:
        extra["boston"] = True
    if blind:
        made = tricks == bid if st.rules.blind_exact else tricks >= bid  # B6
        return (2 * value, 0, False, extra) if made else (-value, 0, True, extra)
    if bid == 10:
        made = tricks >= 10
    else:
        made = bid <= tricks <= bid + 2
    return (value, 0, False, extra) if made else (-value, 0, True, extra)


def _bag_penalty(st, i, hand_bags) -> int:
    """S2: add this hand's bags to the side's count; return the penalty it costs."""
    r = st.rules
    total = st.bags[i] + hand_bags
    if not r.bag_limit:
        st.bags[i] = total
        return 0
    if r.bag_overflow == "carry":
        times, st.bags[i] = divmod(total, r.bag_limit)
    elif r.bag_overflow == "carry_once":
        times = 1 if total >= r.bag_limit else 0
        st.bags[i] = total - times * r.bag_limit
    else:
        times = 1 if total >= r.bag_limit else 0
        st.bags[i] = 0 if times else total
    return times * r.bag_penalty


def end_of_game(st, row) -> int | None:
    """The winning side's index once the game is over, else None (E1-E4)."""
    r = st.rules
    shown = st.display_scores()
    everyone = range(len(shown))
    if r.boston_wins:
        for i, res in enumerate(row["sides"]):
            if res.get("boston"):
                return i
    if r.double_nil_ends or r.blind_double_nil_ends:
        ended = _double_nil_end(st, row)
        if ended is not None:
            return ended
    if r.moon_wins:  # B10: "a successful Moon bid automatically wins the game"
        for i, res in enumerate(row["sides"]):
            if res.get("moon", {}).get("made"):
                return i
    if r.sets_to_lose or r.floor is not None:
        won = _last_standing(st, shown)
        if won is not None:
            return won
    if max(shown) >= r.target:  # (most hands: nobody is there yet, nothing to list)
        won = _highest(shown, [i for i in everyone if shown[i] >= r.target])
        if won is not None:
            return won
    if r.max_hands and st.hand_no >= r.max_hands:
        return _highest(shown, everyone)
    return None


def _last_standing(st, shown) -> int | None:
    """E2, E3: the best side of those that have not lost (sets in a row, the floor)."""
    r, everyone = st.rules, range(len(shown))
    losers = set()
    if r.sets_to_lose:
        losers |= {i for i in everyone if st.sets_in_row[i] >= r.sets_to_lose}
    if r.floor is not None:
        losers |= {i for i in everyone if shown[i] <= r.floor}
    if not losers:
        return None
    return _highest(shown, [i for i in everyone if i not in losers] or list(everyone))


def _double_nil_end(st, row) -> int | None:
    """B11 (pagat): a double nil that "automatically" wins or loses the game; a blind double
    nil: "If successful, the bidders win the whole game; if not their opponents win"."""
    r = st.rules
    for i, res in enumerate(row["sides"]):
        dn = res.get("double_nil")
        if not dn or not (r.double_nil_ends or dn["blind"]):  # (one of the two is on)
            continue
        if dn["made"]:
            return i
        shown = st.display_scores()
        return max((j for j in range(len(shown)) if j != i), key=lambda j: (shown[j], -j))
    return None


def _highest(scores, among) -> int | None:
    """The index with the single highest score among `among`; None on a tie (play on)."""
    among = list(among)
    top = max(scores[i] for i in among)
    best = [i for i in among if scores[i] == top]
    return best[0] if len(best) == 1 else None
