"""Tempo (issue 14): how many decisions and mails a game to 500 asks of its players, and how
many calendar days it takes, with one card per mail beside cards that play themselves and
orders given ahead.

    .venv/bin/python bench/tempo.py [--games 40] [--seed 1]

Robots stand in for four humans. Each decision waits for its player to read a mail and
answer: a log-normal delay, median 4 hours (sigma 1), and nobody answers between 23:00 and
07:00 in their own zone (seats 0 and 2 at UTC+1, seats 1 and 3 at UTC-5). The game is the
same robot game for every policy (same deals, same cards); a policy only decides which of
those cards needed a person:
  one card a mail          every bid and card is a mail and a decision
  forced                   a seat's only legal card plays itself (the default)
  forced + equal           and touching cards (auto equal), lowest first
  forced + equal + orders  and, with each answer, the orders a careful player gives
                           (bench/careful.py), applied by the server's own functions
                           (pbem.engine.orders.next_card, then pbem.engine.auto.auto_card)
An order that would play another card than the robot's is counted as overruled and its
turn as a decision (a mail the product would have saved: the figures are a floor).

Mails: a turn mail per decision; with the default `notify every turn` a mail to each
player not to act whenever a move ended a trick or a hand (pbem.notify); with `notify
digest` one digest a player a day the game moved (run at 06:00 UTC) instead; a mail for
each order dropped (it could not be kept, or its hand ended: pbem.orders); the result.
"""

import argparse
import math
import random
import statistics
import sys
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.careful import careful_lines  # noqa: E402
from pbem.engine import preset, view  # noqa: E402
from pbem.engine.auto import auto_card  # noqa: E402
from pbem.engine.orders import MAX_ORDERS, next_card, read  # noqa: E402
from pbem.simulate import play_game  # noqa: E402

ONE, FORCED, EQUAL, ORDERS = ("one card a mail", "forced", "forced + equal",
                              "forced + equal + orders")
POLICIES = (ONE, FORCED, EQUAL, ORDERS)
MEDIAN_HOURS, SIGMA, SLEEP = 4.0, 1.0, (23, 7)
ZONES = (1, -5, 1, -5)  # each seat's hours from UTC: two players in Europe, two in New York
DIGEST_HOUR = 6  # UTC: when `pbem digest` runs each day
DECIDED = ("bid", "look", "pass", "play")  # what a person chooses (deals are the server's)


class Tally:
    """One policy's count over one game: its moves (a decision and what plays itself after
    it, up to the next decision), and whether each ended a trick or a hand."""

    def __init__(self):
        self.moves: list[list] = []  # [seat, ended a trick or hand]
        self.start = None
        self.drops = self.given = self.by_order = self.overruled = self.illegal = 0

    def decide(self, key, seat) -> None:
        """`seat` decides the next event; `key`: (hand, tricks done) before it."""
        if self.moves:
            self.moves[-1][1] = self.start != key
        self.moves.append([seat, False])
        self.start = key

    @property
    def decisions(self) -> int:
        return len(self.moves)

    @property
    def news(self) -> int:
        """Mails under `notify every turn`: each player not to act hears of a trick or a
        hand that a move ended (the last move ends the game: its mail is the result)."""
        return sum(3 for _, ended in self.moves if ended)


class Careful:
    """The orders policy's seats: each one's pending orders, as pbem.orders keeps them
    (given with an answer, spent when played, dropped with a mail when they cannot be
    kept or their hand ends), applied as the door applies them."""

    def __init__(self, tally: Tally, players: int):
        self.tally = tally
        self.pending: list[list[dict]] = [[] for _ in range(players)]
        self.plan = None  # for the seat to play now: (order index or -1, its card, auto card)

    def before(self, st) -> None:
        """The state before the next event: expire orders, and see what would play."""
        for mine in self.pending:
            left = [o for o in mine if o["hand"] == st.hand_no and st.phase != "over"]
            self.tally.drops += len(mine) - len(left)
            mine[:] = left
        self.plan = None
        if st.phase == "play":
            self.plan = self._act(st, st.turn) + (auto_card(st, st.turn, True),)

    def _act(self, st, seat) -> tuple[int, str | None]:
        """As pbem.orders.Pending.next_play: orders that cannot be kept drop, with a mail."""
        mine = self.pending[seat]
        while mine:
            i, card = next_card(st, seat, mine)
            if i < 0:
                break
            if card is not None:
                self.tally.illegal += card not in st.playable(seat)
                return i, card
            mine.pop(i)
            self.tally.drops += 1
        return -1, None

    def free(self, seat, card) -> bool:
        """Did an order, or a card that plays itself, play the robot's `card`?"""
        i, ordered, auto = self.plan
        if i < 0:
            return auto is not None
        if ordered == card or auto is not None:  # auto: every legal card is as good
            self.tally.by_order += 1
            if self.pending[seat][i]["kind"] != "low":  # a standing order stays
                self.pending[seat].pop(i)
            return True
        self.pending[seat].pop(i)
        self.tally.overruled += 1
        return False

    def answer(self, st, seat) -> None:
        """After `seat` answered a mail: the orders its careful player adds."""
        if st.phase != "play":
            return  # pbem.orders.give: orders are for the play of a hand
        mine = self.pending[seat]
        for line in careful_lines(view(st, seat), st.rules):
            orders = [dict(o, hand=st.hand_no) for o in read(line)]
            if any(o in mine for o in orders) or len(mine) + len(orders) > MAX_ORDERS:
                continue
            if any(o.get("card") and o["card"] not in st.hands[seat] for o in orders):
                raise AssertionError(f"careful order {line!r}: a card not in the hand")
            mine += orders
            self.tally.given += len(orders)


def tally_game(seed, rules=None) -> tuple[dict[str, Tally], int]:
    """Per policy, the tally of one robot game to 500; and its hands."""
    rules = rules or preset("standard")
    tallies = {name: Tally() for name in POLICIES}
    careful = Careful(tallies[ORDERS], rules.players)
    before = {}

    def watch(st, ev):
        if ev["type"] in DECIDED:
            seat = ev["seat"]
            for name, t in tallies.items():
                if not _free(name, ev, before, careful):
                    t.decide(before["key"], seat)
                    if name == ORDERS:
                        careful.answer(st, seat)
        careful.before(st)
        before.update(key=(st.hand_no, len(st.tricks)), auto={e: auto_card(st, st.turn, e) for e in (0, 1)})

    st, _ = play_game(rules, seed, on_event=watch)
    return tallies, st.hand_no


def _free(name, ev, before, careful) -> bool:
    """Did the card of `ev` play itself under the policy `name` (no person decided it)?"""
    if ev["type"] != "play" or name == ONE:
        return False
    if name == ORDERS:
        return careful.free(ev["seat"], ev["card"])
    return before["auto"][name == EQUAL] is not None


def answered(start: datetime, zone: int, rng) -> datetime:
    """When a player `zone` hours from UTC who got a mail at `start` (UTC) answers it."""
    t = start + timedelta(hours=zone + math.exp(math.log(MEDIAN_HOURS)
                                                + SIGMA * rng.gauss(0, 1)))
    if t.hour >= SLEEP[0] or t.hour < SLEEP[1]:  # asleep: the answer comes after waking
        wake = t.replace(hour=SLEEP[1], minute=0) + timedelta(days=1 if t.hour >= SLEEP[0]
                                                                 else 0)
        t = wake + timedelta(minutes=rng.uniform(0, 90))
    return t - timedelta(hours=zone)


def calendar(moves, rng) -> tuple[float, int]:
    """The days a game's moves take one after another, and the digests they cause (one
    a player a day the game moved)."""
    t0 = t = datetime(2027, 1, 4, 9)
    days = set()
    for seat, _ in moves:
        t = answered(t, ZONES[seat], rng)
        days.add((t - timedelta(hours=DIGEST_HOUR)).date())
    return (t - t0) / timedelta(days=1), len(ZONES) * len(days)


def run(games: int, seed) -> dict[str, dict[str, list[float]]]:
    """Per policy, per figure, one value a game."""
    out = {name: {} for name in POLICIES}
    for g in range(games):
        tallies, hands = tally_game(f"{seed}:{g}")
        for name, t in tallies.items():
            days, digests = calendar(t.moves, random.Random(f"{seed}:{g}:{name}"))
            over = len(ZONES)  # the result, to each player
            figures = {"decisions": t.decisions, "mails": t.decisions + t.news + t.drops + over,
                       "digest mails": t.decisions + digests + t.drops + over,
                       "given": t.given, "by order": t.by_order, "overruled": t.overruled,
                       "dropped": t.drops, "illegal": t.illegal}
            for k, n in figures.items():
                out[name].setdefault(k, []).append(n / hands)
            out[name].setdefault("days", []).append(days)
    return out


def p90(xs) -> float:
    return statistics.quantiles(xs, n=10)[-1]


def report(res, games) -> None:
    mean = {name: {k: statistics.mean(v) for k, v in f.items()} for name, f in res.items()}
    base, base_days = mean[ONE]["mails"], statistics.median(res[ONE]["days"])
    print(f"{games} robot games of standard to 500. A mail is answered after a log-normal "
          f"delay (median {MEDIAN_HOURS:g} h,\nsigma {SIGMA:g}), nobody answering "
          f"{SLEEP[0]}:00-{SLEEP[1]:02}:00 in their zone (UTC{ZONES[0]:+d} and "
          f"UTC{ZONES[1]:+d}). Per hand; % of one card a mail.\n")
    print(f"{'policy':<24} {'decisions':>9} {'mails':>6} {'%':>4} {'digest':>7} {'%':>4} "
          f"{'days':>5} {'p90':>5} {'%':>4}")
    for name in POLICIES:
        m, days = mean[name], res[name]["days"]
        print(f"{name:<24} {m['decisions']:>9.1f} {m['mails']:>6.1f} {m['mails'] / base:>4.0%} "
              f"{m['digest mails']:>7.1f} {m['digest mails'] / base:>4.0%} "
              f"{statistics.median(days):>5.0f} {p90(days):>5.0f} "
              f"{statistics.median(days) / base_days:>4.0%}")
    o = mean[ORDERS]
    print(f"\nmails: turn mails (one a decision), news of tricks and hands (`notify every "
          f"turn`, the default)\nor a daily digest (`notify digest`), dropped orders, the "
          f"result. days: median and p90 of a game.\norders a hand: {o['given']:.1f} given, "
          f"{o['by order']:.1f} cards played by them, {o['overruled']:.1f} overruled, "
          f"{o['dropped']:.1f} dropped (each a mail)")
    verdict(mean, res)


def verdict(mean, res) -> None:
    """The issue's target: half the mails per hand and half the calendar days."""
    one, best = mean[ONE], mean[ORDERS]
    mails = min(best["mails"], best["digest mails"]) / one["mails"]
    days = statistics.median(res[ORDERS]["days"]) / statistics.median(res[ONE]["days"])
    need = one["decisions"] / 2
    print(f"\ntarget, half of one card a mail: mails {mails:.0%} "
          f"({'met' if mails <= 0.5 else 'not met'}), days {days:.0%} "
          f"({'met' if days <= 0.5 else 'not met'}).")
    if days > 0.5:
        print(f"Half the days needs about {need:.1f} decisions a hand (now "
              f"{best['decisions']:.1f}): {best['decisions'] - need:.1f} more cards a hand "
              f"played by orders.")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", default="1")
    args = ap.parse_args()
    if not 1 <= args.games <= 10_000:
        ap.error("--games: 1 to 10000")
    report(run(args.games, args.seed), args.games)


if __name__ == "__main__":
    main()
