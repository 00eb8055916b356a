"""The `pbem` command line."""

import json
import sys
from pathlib import Path

import click

from .engine import PRESETS, IllegalAction, RulesError, preset, pretty, score_pad
from .engine.tricks import table_for
from .engine.view import sort_cards
from .gamelog import LogError, export, read_log, replay_log
from .simulate import MAX_HANDS, play_game

PRESET_INFO = {
    "standard": "4 players in partnerships, nil and blind nil, 10 bags cost 100, game to 500",
    "tournament-300": "jokers and the 2S on top, teams bid 4+, double nil, 6 bags cost 60, "
                      "game to 300",
    "tournament-500": "the tournament sheet's championship game: as tournament-300, to 500",
    "barmore": "jokers, partnership bids, no nil, blind bids of 7+, dealer leads any card",
    "nyc": "New York City: jokers and 2D/2S on top, side bids 4-10, blind 6+ and coming out",
    "cutthroat-3": "3 players, 17 cards each, 2C leads, overtricks cost 10, game to 300",
    "cutthroat-4": "4 players without partners; beat the highest card so far if you can",
    "two-handed": "2 players draw their hands from the stock, then bid and play",
    "six-handed": "3 teams of 2 with two packs less the 2D, 17 cards each",
}


def _fail(message: str, code: int):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


@click.group()
def main():
    """pbem: Spades by email."""


# -- replay ---------------------------------------------------------------------------------


@main.command("replay")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the score pad as JSON.")
def replay_cmd(file, as_json):
    """Replay a game log (FILE, or - for stdin) and print its score pad."""
    text = file.read()
    try:
        header = read_log(text)[0]
        st = replay_log(text)
    except LogError as e:
        _fail(str(e), 1)
    pad = score_pad(st)
    if as_json:
        click.echo(json.dumps(pad, indent=2))
    else:
        click.echo(pad_table(pad, header["seats"]))


def _side_name(seats, names) -> str:
    return "+".join(str(names[s]) for s in seats)


def _bid_text(side: dict) -> str:
    if side.get("bid") is None:
        return "-"  # B13: the hand was not bid
    nils = side.get("nils", [])
    parts = [] if nils and len(nils) == len(side["seats"]) else [str(side["bid"])]
    if side.get("blind"):
        parts[-1] = "blind " + parts[-1]
    parts += [n["bid"] + ("" if n["made"] else "(x)") for n in nils]
    return "+".join(parts)


def pad_table(pad: dict, names) -> str:
    """The score pad for people: one block of columns a side, one row a hand."""
    sides = [_side_name(s["seats"], names) for s in pad["sides"]]
    cols = ["bid", "tricks", "points", "score", "bags"]
    width = 8
    head = f"{'hand':>4} {'dealer':<8}" + "".join(f" | {n[:5 * width]:<{5 * width}}"
                                                  for n in sides)
    sub = " " * 13 + "".join(" | " + "".join(f"{c:>{width}}" for c in cols) for _ in sides)
    lines = [head, sub]
    for i, row in enumerate(pad["hands"], 1):
        cells = []
        for s in row["sides"]:
            points = str(s["points"]) + (f"-{s['bag_penalty']}" if s.get("bag_penalty") else "")
            vals = [_bid_text(s), s["tricks"], points, s["score"], s["total_bags"]]
            cells.append("".join(f"{str(v):>{width}}" for v in vals))
        dealer = str(names[row["dealer"]])
        lines.append(f"{row.get('hand', i):>4} {dealer[:8]:<8}" + "".join(f" | {c}"
                                                                          for c in cells))
    totals = ", ".join(f"{n} {s['score']} ({s['bags']} bags)"
                       for n, s in zip(sides, pad["sides"], strict=True))
    lines.append(f"totals: {totals}")
    if pad["over"]:
        lines.append(f"winner: {sides[pad['winner']]}")
    else:
        lines.append("the game is not over")
    return "\n".join(line.rstrip() for line in lines)


# -- rules ------------------------------------------------------------------------------------


@main.group("rules")
def rules_group():
    """The presets and their options."""


@rules_group.command("list")
def rules_list():
    """Each preset with a one-line description."""
    width = max(len(n) for n in PRESETS)
    for name in PRESETS:
        click.echo(f"{name:<{width}}  {PRESET_INFO.get(name, '')}")


def _option_values(options) -> dict:
    """KEY=VALUE pairs from the command line; values are JSON if they parse (true, 7, null,
    [..]), else words ("draw", "2H,2D")."""
    out = {}
    for text in options:
        key, eq, value = text.partition("=")
        if not eq or not key:
            _fail(f"option {text!r} is not KEY=VALUE", 2)
        try:
            out[key.replace("-", "_")] = json.loads(value)
        except ValueError:
            out[key.replace("-", "_")] = value
    return out


def build_rules(name: str, options):
    """A preset with --option overrides, or exit 2 saying what is wrong."""
    try:
        return preset(name).with_options(**_option_values(options))
    except RulesError as e:
        _fail(str(e), 2)


OPTION = click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
                      help="Override one option of the preset (repeatable).")


@rules_group.command("show")
@click.argument("name", metavar="PRESET")
@OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def rules_show(name, options, as_json):
    """Every option of PRESET with its value."""
    rules = build_rules(name, options)
    data = rules.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    width = max(len(k) for k in data)
    for key, value in data.items():
        click.echo(f"{key:<{width}}  {json.dumps(value)}")


# -- robot games ------------------------------------------------------------------------------


def _result_line(st) -> str:
    pad = score_pad(st)
    scores = " / ".join(str(s["score"]) for s in pad["sides"])
    if st.winner is None:
        return f"{st.hand_no} hands, scores {scores}, unfinished"
    seats = "+".join(str(s) for s in pad["sides"][st.winner]["seats"])
    return f"{st.hand_no} hands, scores {scores}, winner side {st.winner} (seats {seats})"


@main.command("simulate")
@click.option("--rules", "rules_name", default="standard", show_default=True,
              metavar="PRESET")
@OPTION
@click.option("--games", default=10, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write each game's log as DIR/game-0001.jsonl.")
@click.option("--max-hands", default=MAX_HANDS, show_default=True,
              type=click.IntRange(min=1), help="Stop a game after this many hands.")
def simulate_cmd(rules_name, options, games, seed, log_dir, max_hands):
    """Play robot games and print one line each and a summary."""
    rules = build_rules(rules_name, options)
    if log_dir:
        log_dir.mkdir(parents=True, exist_ok=True)
    wins = [0] * len(rules.sides)
    unfinished = hands = 0
    for g in range(1, games + 1):
        try:
            st, events = play_game(rules, f"{seed}:{g}", max_hands=max_hands)
        except IllegalAction as e:  # the robot broke a rule: a bug worth a loud stop
            _fail(f"game {g}: {e}", 1)
        click.echo(f"game {g}: {_result_line(st)}")
        hands += st.hand_no
        if st.winner is None:
            unfinished += 1
        else:
            wins[st.winner] += 1
        if log_dir:
            text = export(rules, events, [f"robot{i}" for i in range(rules.players)],
                          st.first_dealer)
            (log_dir / f"game-{g:04d}.jsonl").write_text(text, encoding="utf-8")
    per_side = ", ".join(f"side {i}: {w}" for i, w in enumerate(wins))
    click.echo(f"{games} games of {rules.preset}, {hands / games:.1f} hands a game; "
               f"wins {per_side}; unfinished {unfinished}")


@main.command("demo")
@click.option("--rules", "rules_name", default="standard", show_default=True,
              metavar="PRESET")
@OPTION
@click.option("--seed", default=0, show_default=True, type=int)
def demo_cmd(rules_name, options, seed):
    """Play one robot game and print it as it is played."""
    rules = build_rules(rules_name, options)
    st, _ = play_game(rules, seed, on_event=_Narrator(rules))
    click.echo(f"game over: {_result_line(st)}")


def _cards(cards, table) -> str:
    return " ".join(pretty(c) for c in sort_cards(cards, table))


class _Narrator:
    """Prints each event of a robot game for people (the on_event of play_game)."""

    def __init__(self, rules):
        self.table = table_for(rules)
        self.trick = []
        self.scored = 0  # score pad rows printed so far

    def __call__(self, st, ev):
        kind, seat = ev["type"], ev.get("seat")
        if kind == "deal":
            click.echo(f"\n== hand {st.hand_no + 1}: seat {ev['dealer']} deals ==")
            if not ev.get("stock"):
                self.show_hands(st)
        elif kind == "draw" and st.phase != "draw":
            click.echo("the stock is drawn:")
            self.show_hands(st)
        elif kind == "bid":
            blind = "blind " if ev.get("blind") else ""
            click.echo(f"seat {seat} bids {blind}{ev['bid']}")
        elif kind == "pass":
            click.echo(f"seat {seat} passes {_cards(ev['cards'], self.table)}")
        elif kind in ("misdeal", "come_out", "stay", "claim"):
            click.echo(f"seat {seat}: {kind.replace('_', ' ')}")
        elif kind == "play":
            self.play(st.n, ev)
        if len(st.history) > self.scored:  # the hand just ended (last trick or a claim)
            self.scored = len(st.history)
            self.trick = []
            self.show_score(st.history[-1])

    def show_hands(self, st):
        for s, hand in enumerate(st.hands):
            click.echo(f"  seat {s}: {_cards(hand, self.table)}")

    def play(self, n, ev):
        self.trick.append((ev["seat"], ev["card"]))
        if len(self.trick) < n:
            return
        winner = self.trick[self.table.winning(self.trick)][0]
        cards = ", ".join(f"{s}:{pretty(c)}" for s, c in self.trick)
        click.echo(f"  trick: {cards} -> seat {winner}")
        self.trick = []

    def show_score(self, row):
        for side in row["sides"]:
            seats = "+".join(str(x) for x in side["seats"])
            click.echo(f"  seats {seats}: bid {_bid_text(side)}, took {side['tricks']}, "
                       f"{side['points']:+d} -> {side['score']} ({side['total_bags']} bags)")


# -- the game store ---------------------------------------------------------------------------
# Every store command works on DATABASE_URL (default: a SQLite file under ./var). A SQLite
# database is created and migrated on first use; PostgreSQL, shared by many processes, is
# migrated only by `pbem db upgrade`, and the other commands refuse until it is current.


def _where(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _store():
    """The configured store, brought up to date first if it is a SQLite file."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from .config import load
    from .play import store_for
    from .store.db import alembic_config, upgrade

    url = load().database_url
    store = store_for(url)
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    with store.engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    if current != head:
        if not url.startswith("sqlite"):
            _fail(f"the database at {_where(url)} is not up to date: run `pbem db upgrade`", 1)
        upgrade(url)
    return store


@main.group("db")
def db_group():
    """The database (DATABASE_URL; default a SQLite file under ./var)."""


@db_group.command("upgrade")
def db_upgrade():
    """Create or migrate the database to the newest schema (Alembic upgrade head)."""
    from .config import load
    from .store.db import upgrade

    url = load().database_url
    upgrade(url)
    click.echo(f"database at {_where(url)} is up to date")


@main.group("game")
def game_group():
    """Games in the store. A SQLite database is created on first use; PostgreSQL needs
    `pbem db upgrade` first."""


def _load(store, game_id: int):
    """(game row, seat names, state) or exit 1 naming the problem."""
    from .play import Refused
    from .store.games import seat_names
    from .store.models import Game

    with store.session() as s:
        game = s.get(Game, game_id)
        if game is None:
            _fail(f"there is no game {game_id}", 1)
        try:
            st = store.state(s, game)
        except Refused as e:
            _fail(e.reason, 1)
        return game, seat_names(s, game_id), st


def time_control_options(fn):
    """The clock's options, shared by `game new` and `league new`."""
    options = [
        click.option("--move-hours", type=click.IntRange(min=1), default=72, show_default=True,
                     help="The deadline for each move, in hours (24, 48, 72, 120, 168, 336 ...)."),
        click.option("--remind", default="24,2", show_default=True,
                     help="Reminders, in hours before the deadline (comma separated; '' for "
                     "none)."),
        click.option("--weekend-pause", is_flag=True,
                     help="Saturdays and Sundays (UTC) don't count."),
        click.option("--on-timeout", type=click.Choice(["robot", "forfeit", "wait"]),
                     default="robot", show_default=True, help="What the deadline does: the "
                     "robot moves, the side forfeits, or the game waits for the organiser."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def time_control(move_hours, remind, weekend_pause, on_timeout) -> dict:
    try:
        hours = [int(h) for h in remind.replace(" ", "").split(",") if h]
    except ValueError:
        _fail(f"--remind takes hours like 24,2, not {remind!r}", 2)
    return {"move_hours": move_hours, "remind_hours": hours, "weekend_pause": weekend_pause,
            "on_timeout": on_timeout}


@game_group.command("new")
@click.option("--rules", "rules_name", default="standard", show_default=True,
              metavar="PRESET")
@OPTION
@click.option("--seat", "seats", multiple=True, required=True, metavar="EMAIL|robot",
              help="One per seat, from seat 0: a player's address, or robot.")
@click.option("--first-dealer", type=int, help="The seat that deals first (default: random).")
@click.option("--private", is_flag=True, help="Hide the score pad from the public.")
@time_control_options
def game_new(rules_name, options, seats, first_dealer, private, **clock_options):
    """Create a game and deal its first hand (robots then move: four robots play it out).
    Prints each seat's reply address play+TOKEN@DOMAIN (the token is secret to its player)."""
    from .config import load
    from .play import start
    from .store.games import create_game
    from .store.models import Seat

    rules = build_rules(rules_name, options)
    if first_dealer is not None and not 0 <= first_dealer < rules.players:
        _fail(f"--first-dealer {first_dealer} is not a seat (0-{rules.players - 1})", 2)
    tc = time_control(**clock_options)
    store = _store()
    try:
        gid = create_game(store, rules, list(seats), first_dealer, public=not private,
                          time_control=tc)
    except ValueError as e:
        _fail(str(e), 2)
    st = start(store, gid).state
    with store.session() as s:
        rows = s.exec(_seats_query(Seat, gid)).all()
    click.echo(f"game {gid}: {rules.preset}, {_status_text(st)}")
    domain = load().mail_domain
    for row, name in zip(rows, seats, strict=True):
        where = "robot" if row.robot else f"{name.strip().lower()}  play+{row.token}@{domain}"
        click.echo(f"  seat {row.seat}: {where}")


def _seats_query(seat_model, gid):
    from sqlmodel import select

    return select(seat_model).where(seat_model.game_id == gid).order_by(seat_model.seat)


def _status_text(st) -> str:
    if st.phase == "over":
        return f"over after {st.hand_no} hands, {_scores(st)}"
    acting = ", ".join(str(s) for s in st.to_act()) or "-"
    return f"move {st.seq}, {st.phase}, to act: seat {acting}"


def _scores(st) -> str:
    return " / ".join(str(x) for x in st.display_scores())


@game_group.command("list")
def game_list():
    """Every game: id, preset, status, move (seq), score, seats."""
    from sqlmodel import select

    from .store.models import Game

    store = _store()
    with store.session() as s:
        ids = s.exec(select(Game.id).order_by(Game.id)).all()
    for gid in ids:
        game, names, st = _load(store, gid)
        click.echo(f"{gid:>5}  {st.rules.preset:<15} {game.status:<8} seq {st.seq:<5} "
                   f"score {_scores(st):<12} {', '.join(names)}")


@game_group.command("show")
@click.argument("game_id", metavar="GAME", type=int)
@click.option("--json", "as_json", is_flag=True,
              help="The score pad as JSON, with phase, seq, to_act and seats.")
def game_show(game_id, as_json):
    """A game for organisers: the table (phase, to act, bids, tricks) and the score pad.
    No hand is shown."""
    game, names, st = _load(_store(), game_id)
    pad = score_pad(st)
    if as_json:
        pad.update(game=game_id, status=game.status, phase=st.phase, seq=st.seq,
                   to_act=st.to_act(), seats=names)
        click.echo(json.dumps(pad, indent=2))
        return
    click.echo(f"game {game_id}: {st.rules.preset}, {game.status}, "
               f"{'public' if game.public else 'private'}; {_status_text(st)}")
    for i, name in enumerate(names):
        bid = st.bids[i]
        bid = "-" if bid is None else ("blind " if st.blind[i] else "") + str(bid)
        click.echo(f"  seat {i}: {name:<24} bid {bid:<10} tricks {st.won[i]}")
    if st.trick:
        click.echo("  trick: " + ", ".join(f"{s}:{pretty(c)}" for s, c in st.trick))
    click.echo(pad_table(pad, names))


@game_group.command("export")
@click.argument("game_id", metavar="GAME", type=int)
def game_export(game_id):
    """Write the game's log (docs/log-format.md) to stdout."""
    from .store.games import export as export_game

    try:
        text = export_game(_store(), game_id)
    except ValueError as e:
        _fail(str(e), 1)
    click.echo(text, nl=False)


@game_group.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8"))
def game_import(file):
    """A new game from a log (FILE, or - for stdin): an illegal log is refused whole,
    naming the seq, and nothing is written. Seats with an address ("@") become players, any
    other name a robot. The game then goes on as any other: if a deal or a robot's move is
    due, it is made. Prints the new game's id."""
    from .play import import_log, start

    store = _store()
    try:
        gid = import_log(store, file.read())
    except LogError as e:
        _fail(str(e), 1)
    start(store, gid)
    click.echo(gid)


@main.command("move")
@click.argument("game_id", metavar="GAME", type=int)
@click.argument("seat", type=int)
@click.argument("words", metavar="ACTION...", nargs=-1, required=True)
@click.option("--seq", type=int, help="The move number the mover saw (refused if stale).")
@click.option("--ref", help="A reference that applies once (a repeat changes nothing).")
def move_cmd(game_id, seat, words, seq, ref):
    """Make SEAT's move in GAME through the one door, as a player would ("bid 4", "nil",
    "play QH"); robots then move. For organisers and tests."""
    from .engine import parse_action
    from .play import Refused, submit

    store = _store()
    game, _names, st = _load(store, game_id)
    if not 0 <= seat < st.n:
        _fail(f"there is no seat {seat} in game {game_id} (seats 0-{st.n - 1})", 1)
    try:
        action = parse_action(" ".join(words), st.rules)
    except ValueError as e:
        _fail(f"cannot read {' '.join(words)!r}: {e}", 1)
    try:
        result = submit(store, game_id, seat, action, expect_seq=seq, source="cli", ref=ref)
    except Refused as e:
        _fail(e.reason, 1)
    if result.duplicate:
        click.echo(f"ref {ref} was applied before: nothing changed")
    mine = True
    for ev in result.events:
        mine = mine and ev.get("seat") == seat  # the move's own events, then what followed
        click.echo(f"{'applied' if mine else 'then'} seq {ev['seq']}: {_event_text(ev)}")
    click.echo(_status_text(result.state))


def _event_text(ev) -> str:
    kind, seat = ev["type"], ev.get("seat")
    if kind == "deal":
        return f"seat {ev['dealer']} deals"
    if kind == "reveal":
        return f"the salt of the deal at seq {ev['deal']} is revealed"
    if kind == "bid":
        return f"seat {seat} bids {'blind ' if ev.get('blind') else ''}{ev['bid']}"
    if kind == "play":
        return f"seat {seat} plays {pretty(ev['card'])}"
    if kind == "pass":
        return f"seat {seat} passes {len(ev['cards'])} cards"
    return f"seat {seat}: {kind.replace('_', ' ')}"


@main.command("verify")
@click.argument("file", type=click.File("r", encoding="utf-8"))
def verify_cmd(file):
    """Check every deal's commitment in a log (FILE, or - for stdin): the log is replayed,
    each revealed salt must match its deal's SHA-256 commitment. Prints each deal's seq with
    "verified", "not yet revealed" (its hand is in progress), "not revealed" or "no
    commitment". A mismatch, or any illegal event, is an error naming its seq (exit 1)."""
    text = file.read()
    try:
        st = replay_log(text)
        events = read_log(text)[2]
    except LogError as e:
        _fail(str(e), 1)
    deals = [ev for ev in events if ev.get("type") == "deal"]
    for ev in deals:
        click.echo(f"seq {ev['seq']}: {_deal_status(st, ev)}")
    click.echo(f"{len(deals)} deals, {len(st.reveals)} verified")


def _deal_status(st, ev) -> str:
    if not ev.get("commitment"):
        return "no commitment"
    if ev["seq"] in st.reveals:
        return "verified"
    current = st.deal_record and st.deal_record["seq"] == ev["seq"]
    return "not yet revealed" if current and st.phase not in ("deal", "over") else "not revealed"


# -- serving ---------------------------------------------------------------------------------


@main.command("serve")
@click.option("--lmtp", is_flag=True, help="Speak LMTP (behind Postfix) instead of SMTP.")
@click.option("--no-smtp", is_flag=True, help="Receive no mail here.")
@click.option("--no-web", is_flag=True, help="Serve no pages here (gunicorn does).")
def serve_cmd(lmtp, no_smtp, no_web):
    """Run pbem: the web on PBEM_WEB_HOST:PBEM_WEB_PORT (127.0.0.1:5000), mail in on
    PBEM_SMTP_HOST:PBEM_SMTP_PORT (127.0.0.1:2525), and the outbox sent (to PBEM_SMTP_URL,
    or into the Maildir under ./var)."""
    from .config import load
    from .serve import run

    run(_store(), load(), smtp=not no_smtp, lmtp=lmtp, web=not no_web, echo=click.echo)


@main.command("smtp")
@click.option("--lmtp", is_flag=True, help="Speak LMTP (behind Postfix) instead of SMTP.")
def smtp_cmd(lmtp):
    """Only the inbound mail handler (beside other processes that send the outbox)."""
    from .config import load
    from .mail.inbound import controller

    cfg = load()
    ctl = controller(_store(), cfg, cfg.smtp_host, cfg.smtp_port, lmtp=lmtp)
    ctl.start()
    _run_until_stopped(f"{'LMTP' if lmtp else 'SMTP'} on {cfg.smtp_host}:{cfg.smtp_port}",
                       ctl.stop)


def _run_until_stopped(banner: str, stop) -> None:
    """Say what runs, wait for Ctrl-C (or SIGINT), then stop it."""
    import threading

    click.echo(banner)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop()


@main.command("outbox")
def outbox_cmd():
    """Send what the outbox holds now, once (`pbem serve` does this every few seconds)."""
    from .config import load
    from .serve import delivery
    from .store.outbox import drain

    click.echo(f"sent {drain(_store(), delivery(load()))}")


@main.command("clock")
@click.option("--every", default=30.0, show_default=True, help="Seconds between ticks.")
def clock_cmd(every):
    """Only the clock: reminders and timeouts (beside web workers that run none). Two clocks
    at once are safe: the database decides what fired."""
    from .clock import scheduler

    sched = scheduler(_store(), every)
    sched.start()
    _run_until_stopped(f"clock: deadlines checked every {every:g} s",
                       lambda: sched.shutdown(wait=False))


@main.command("digest")
def digest_cmd():
    """Queue today's digest mail for every player who chose `notify digest` (run daily)."""
    from .digest import send_digests

    click.echo(f"queued {send_digests(_store())}")


def _league_commands():
    from .league.cli import league_group  # built on this module's helpers

    main.add_command(league_group)


if __name__ == "__main__":  # python -m pbem.cli: run the importable module, which has them all
    from pbem.cli import main as pbem_main

    pbem_main()
else:
    _league_commands()
