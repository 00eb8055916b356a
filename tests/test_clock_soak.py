"""Soak test of the clock: many games, mixed time controls, 30 simulated days in which
nobody moves but the clock (humans never answer). The clock ticks every simulated hour under
a frozen clock (time_machine); at the end every Deadline row that came due was handled once,
on time, with exactly its effects, and every game still playing is armed for its next move.

Each game has one human seat and three robots; the human's time control is drawn from
move_hours 24/48/72/168, reminders [24, 2] or [12], weekend pause on a third of them, and
on_timeout robot (80%), forfeit or wait (10% each); a fifth play a single hand (max_hands=1),
so robot timeouts also finish games. Mid-way the server "restarts" (a fresh Store, empty
state cache) and `deadlines.rebuild` must find nothing to arm.

Size: the full stack costs about 10-20 ms per timeout (a claim, a submit with the robots'
replies and the next deadlines, mails) and 3-7 ms per reminder, on SQLite and PostgreSQL
respectively, and a game with move_hours 24 times out 30 times in 30 days. The issue's 1,000
games (PBEM_SOAK_GAMES=1000: 22,954 deadlines handled) passed in 293 s on SQLite and 523 s
on PostgreSQL (2 cores, run side by side), far over the suite's budget; so the suite runs the
same mix with SOAK_GAMES = 60 (1,299 deadlines, about 10 s and 17 s). The wall time is
printed for every run (pytest -s).
"""

import os
import random
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from sqlmodel import select

from pbem import clock, deadlines, play
from pbem.engine import preset
from pbem.store.games import create_game
from pbem.store.models import Deadline, Game, Move, Outbox, Seat
from pbem.store.states import Store

SOAK_GAMES = int(os.environ.get("PBEM_SOAK_GAMES", "60"))
DAYS = 30
STEP = timedelta(hours=1)  # the clock ticks once a simulated hour
LIMIT = 100  # rows a tick takes at most: a busy hour needs several ticks
T0 = datetime(2026, 3, 5, 0, 0, tzinfo=UTC)  # a Thursday: the first weekend comes at once
START_HOURS = 20  # games start spread over the first hours


def time_controls(n: int, seed: int = 6) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        out.append({
            "move_hours": rng.choice([24, 48, 72, 168]),
            "remind_hours": rng.choice([[24, 2], [12]]),
            "weekend_pause": i % 3 == 0,
            "on_timeout": rng.choices(["robot", "forfeit", "wait"], [8, 1, 1])[0],
        })
    return out


def weekday_hours(a: datetime, b: datetime) -> float:
    """Hours from a to b that fall on Monday to Friday (UTC), counted day by day."""
    total, t = timedelta(0), a
    while t < b:
        midnight = datetime(t.year, t.month, t.day, tzinfo=UTC) + timedelta(days=1)
        end = min(b, midnight)
        if t.weekday() < 5:
            total += end - t
        t = end
    return total / timedelta(hours=1)


def run_clock(store, games: int) -> dict:
    """Create `games` games over the first START_HOURS hours, tick hourly for DAYS days;
    returns what the checks need."""
    tcs = time_controls(games)
    starts = [T0 + timedelta(minutes=i * START_HOURS * 60 // games) for i in range(games)]
    info = {}  # game id -> (time control, human seat, start time, single hand)
    end = T0 + timedelta(days=DAYS)
    ticks = handled = 0
    standard = preset("standard")
    with time_machine.travel(T0, tick=False) as tm:
        now, i = T0, 0
        while now <= end:
            while i < games and starts[i] < now + STEP:  # the games starting this hour
                tm.move_to(starts[i])
                human, single = i % 4, i % 5 == 0
                rules = standard.with_options(max_hands=1) if single else standard
                seats = ["robot"] * 4
                seats[human] = f"h{i}@soak.test"
                gid = create_game(store, rules, seats, first_dealer=i % 4,
                                  time_control=tcs[i])
                play.start(store, gid)
                info[gid] = (tcs[i], human, starts[i], single)
                i += 1
            tm.move_to(now)
            while True:  # a busy hour: tick again until a tick takes less than its limit
                n = clock.tick(store, limit=LIMIT)
                ticks, handled = ticks + 1, handled + n
                if n < LIMIT:
                    break
            assert clock.tick(store) == 0, f"a second tick at {now} handled something again"
            if now == T0 + timedelta(days=DAYS // 2):  # a restart: nothing to arm again
                store = Store(store.url)
                assert deadlines.rebuild(store) == 0, "rebuild armed games that were armed"
            now += STEP
    return {"info": info, "end": end, "ticks": ticks, "handled": handled, "store": store}


def check(store, run: dict) -> Counter:
    """Every due row handled once, on time, with its effects; returns the results seen."""
    info, end = run["info"], run["end"]
    with store.session() as s:
        rows = s.exec(select(Deadline)).all()
        moves = s.exec(select(Move.game_id, Move.seq, Move.actor, Move.source, Move.ref,
                              Move.type, Move.payload)).all()
        keys = set(s.exec(select(Outbox.dedupe_key)).all())
        # a timeout's notice to a seat that got a turn, news or result mail from the same
        # write went in that mail (pbem.notify.with_notices): count those, by game and seat
        folded = Counter(tuple(int(x) for x in key.split(":")[1:3]) for key, body in s.exec(
            select(Outbox.dedupe_key, Outbox.body_text)).all()
            if key.startswith(("turn:", "news:", "over:")) and "did not move in time" in body)
        status = dict(s.exec(select(Game.id, Game.status)).all())
        humans = {g: p for g, p in s.exec(select(Seat.game_id, Seat.seat)
                                          .where(Seat.robot == False)).all()}  # noqa: E712
    robot = [r for r in rows if r.kind == deadlines.ROBOT]  # a robot's turn, in case of a crash
    assert all(r.state == "cancelled" for r in robot), "a robot waited for the clock"
    rows = [r for r in rows if r.kind != deadlines.ROBOT]
    last_seq = defaultdict(int)
    for m in moves:
        last_seq[m.game_id] = max(last_seq[m.game_id], m.seq)
    results = Counter()

    # 1. every row that came due was handled exactly once, within a tick of its due time
    for r in rows:
        assert r.seat == humans[r.game_id], f"deadline {r.id} is armed for a robot seat"
        if r.due <= end:
            assert r.state == "done", f"deadline {r.id} due {r.due} is {r.state}"
            late = r.claimed_at and r.claimed_at - r.due
            assert r.claimed_at and timedelta(0) <= late < STEP, f"deadline {r.id} late: {late}"
            results[r.result] += 1
        else:
            assert r.state == "pending", f"deadline {r.id} due after the end is {r.state}"
            assert r.seq == last_seq[r.game_id], f"pending deadline {r.id} is for an old seq"
    assert results["moved on"] == 0, "nobody but the clock moved, yet a deadline 'moved on'"

    # 2. the effects: one clock move per robot/forfeit timeout, one mail per reminder and
    # per timeout, and no clock move or clock mail without a done row behind it
    clock_moves = [m for m in moves if m.source == "clock"]
    assert len({m.ref for m in clock_moves}) == len(clock_moves)
    refs = Counter(m.ref for m in clock_moves)
    for r in rows:
        acted = r.kind == "timeout" and r.result in ("timeout: robot", "timeout: forfeit")
        assert refs.pop(f"timeout:{r.id}", 0) == (1 if acted else 0), f"deadline {r.id} moves"
        if r.state == "done":
            key = f"remind:{r.id}" if r.kind == "reminder" else f"timeout:{r.id}:{r.seat}"
            if key not in keys and r.kind != "reminder" and folded[(r.game_id, r.seat)]:
                folded[(r.game_id, r.seat)] -= 1  # told in the seat's mail of that write
                continue
            assert key in keys, f"deadline {r.id} ({r.kind}) sent no mail"
            keys.discard(key)
    assert not refs, f"clock moves without a deadline behind them: {list(refs)[:5]}"
    assert not {k for k in keys if k.startswith(("remind:", "timeout:"))}, "stray clock mail"
    for m in moves:  # the human only ever moved by the clock
        if m.actor == humans[m.game_id] and m.type in ("bid", "play", "resign"):
            # the clock's, the seat's only legal card, or the rest of a hand no play can
            # change (pbem.engine.settled): those play themselves
            auto = (m.source == "auto" and m.payload.get("auto") == "forced"
                    or m.source == "settled" and m.payload.get("auto") == "settled")
            assert m.source == "clock" or auto, f"game {m.game_id}: a human move by {m.source}"

    # 3. each game's deadlines follow its time control, from the start, seq after seq
    per_game = defaultdict(list)
    for r in rows:
        per_game[r.game_id].append(r)
    for gid, (tc, _human, start, single) in info.items():
        mine = sorted(per_game[gid], key=lambda r: (r.seq, r.due))
        timeouts = [r for r in mine if r.kind == "timeout"]
        armed = start
        for t in timeouts:
            if tc["weekend_pause"]:
                assert weekday_hours(armed, t.due) == tc["move_hours"], f"game {gid} pause"
            else:
                assert t.due - armed == timedelta(hours=tc["move_hours"]), f"game {gid} due"
            want = {h for h in tc["remind_hours"]
                    if h < tc["move_hours"] and t.due - timedelta(hours=h) > armed}
            got = {r.hours_before for r in mine if r.kind == "reminder" and r.seq == t.seq}
            assert got == want, f"game {gid} seq {t.seq}: reminders {got}, not {want}"
            for r in mine:
                if r.kind == "reminder" and r.seq == t.seq:
                    assert r.due == t.due - timedelta(hours=r.hours_before)
            if t.state == "done":
                armed = t.claimed_at
        assert len({t.seq for t in timeouts}) == len(timeouts), f"game {gid}: two timeouts"
        assert timeouts, f"game {gid} was never armed"
        how, over = tc["on_timeout"], status[gid] == "over"
        if how == "forfeit":  # its first timeout (at most 168 hours in) ended it
            assert over and len(timeouts) == 1 and timeouts[0].result == "timeout: forfeit"
        elif how == "wait":  # it times out once, then waits for the organiser
            assert not over and [t.result for t in timeouts] == ["timeout: wait"]
        elif not over:  # still playing: armed for the move it waits for, after the end
            assert timeouts[-1].state == "pending" and timeouts[-1].due > end, f"game {gid}"
        else:
            assert single and timeouts[-1].state == "done", f"game {gid} ended by itself"
            assert not [r for r in mine if r.state == "pending"], f"game {gid} over, armed"
    return results


@pytest.mark.slow
def test_clock_soak(db_url, capsys):
    store = Store(db_url)
    t = time.perf_counter()
    run = run_clock(store, SOAK_GAMES)
    ran = time.perf_counter() - t
    results = check(run["store"], run)
    wall = time.perf_counter() - t
    over = Counter(st for st in _statuses(run["store"]))
    report = (f"clock soak on {db_url.split(':')[0]}: {SOAK_GAMES} games, {DAYS} days, "
              f"{run['ticks']} ticks, {run['handled']} deadlines handled "
              f"({dict(results)}), games {dict(over)}; {ran:.1f} s run + "
              f"{wall - ran:.1f} s checks = {wall:.1f} s wall")
    with capsys.disabled():
        print("\n" + report)
    assert run["handled"] == sum(results.values()), report
    assert results["timeout: forfeit"] and results["timeout: wait"] and results["reminded"]
    assert over["over"] and over["playing"], report


def _statuses(store):
    with store.session() as s:
        return s.exec(select(Game.status)).all()
