"""What every `pbem` command group shares: failing with a message, the store (migrated on
first use when it is a SQLite file), rule options, the clock's options, the score pad as
text, and running until stopped."""

import json
import signal
import sys
import threading

import click
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import exc
from sqlalchemy.engine import make_url

from .. import gc_tuning
from ..config import Settings, load, require_site
from ..deadlines import CLOCKS, MAX_HOURS, check
from ..engine import RulesError, preset
from ..seatclock import DEFAULTS as BANK
from ..store.db import alembic_config, upgrade
from ..store.states import store_for


def fail(message: str, code: int):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _option_values(options) -> dict:
    """KEY=VALUE pairs from the command line; values are JSON if they parse (true, 7, null,
    [..]), else words ("draw", "2H,2D")."""
    out = {}
    for text in options:
        key, eq, value = text.partition("=")
        if not eq or not key:
            fail(f"option {text!r} is not KEY=VALUE", 2)
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
        fail(str(e), 2)


OPTION = click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE",
                      help="Override one option of the preset (repeatable).")


# -- the game store ---------------------------------------------------------------------------
# Every store command works on DATABASE_URL (default: the SQLite file in the data directory,
# PBEM_VAR_DIR). None makes a database or a key: `pbem init` (or `pbem db upgrade`) does. A
# SQLite file is migrated on first use; PostgreSQL, shared by many processes, only by `pbem
# db upgrade`, and the other commands refuse until it is current.


def where(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def unreachable(url: str, e: exc.DBAPIError) -> click.ClickException:
    """A database that is down or missing, in one line (the driver's first line says why)."""
    first = str(e.orig).strip().splitlines()[0] if e.orig is not None else type(e).__name__
    return click.ClickException(f"cannot use the database at {where(url)}: {first}")


def revision(url: str) -> str | None:
    """The database's migration (None: none yet), or a one-line error if it cannot be read."""
    try:
        with store_for(url).engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except exc.DBAPIError as e:
        raise unreachable(url, e) from None


def open_store(cfg: Settings | None = None):
    """The configured store, if the site is there (pbem.config.require_site), brought up to
    date first if it is a SQLite file."""
    url = require_site(cfg or load()).database_url
    store = store_for(url)
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    current = revision(url)
    if current != head:
        if not url.startswith("sqlite"):
            fail(f"the database at {where(url)} is not up to date: run `pbem db upgrade`", 1)
        upgrade(url)
    return store


def time_control_options(fn):
    """The clock's options, shared by `game new` and `league new`."""
    options = [
        click.option("--clock", type=click.Choice(CLOCKS), default="move", show_default=True,
                     help="move: a fixed time for each move; bank: a bank of time that each "
                     "move tops up (--bank-hours, --increment-hours, --cap-hours)."),
        click.option("--move-hours", type=click.IntRange(1, MAX_HOURS), default=72,
                     show_default=True,
                     help="The deadline for each move, in hours (24, 48, 72, 120, 168, 336 ...)."),
        click.option("--bank-hours", type=int, default=BANK["bank_hours"], show_default=True,
                     help="A bank clock: each seat's bank at the start, in hours."),
        click.option("--increment-hours", type=int, default=BANK["increment_hours"],
                     show_default=True, help="A bank clock: hours each move adds to the bank."),
        click.option("--cap-hours", type=int, default=BANK["cap_hours"], show_default=True,
                     help="A bank clock: the bank never holds more than this."),
        click.option("--remind", default="24,2", show_default=True,
                     help="Reminders, in hours before the deadline (comma separated; '' for "
                     "none)."),
        click.option("--weekend-pause", is_flag=True,
                     help="Saturdays and Sundays (UTC) don't count."),
        click.option("--on-timeout", type=click.Choice(["robot", "forfeit", "wait"]),
                     default="robot", show_default=True, help="What the deadline does: the "
                     "robot moves, the side forfeits, or the game waits for the organiser."),
        click.option("--auto-vacation/--no-auto-vacation", default=None,
                     help="At a timeout, spend a day of the player's vacation bank instead, "
                     "while it lasts (default: on for a game, off in a league)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def time_control(move_hours, remind, weekend_pause, on_timeout, clock="move",
                 bank_hours=None, increment_hours=None, cap_hours=None, auto_vacation=None,
                 league=False) -> dict:
    """The options as a time control, checked (exit 2 saying what is wrong). Automatic
    vacation is on for a casual game and off in a league unless asked for."""
    try:
        hours = [int(h) for h in remind.replace(" ", "").split(",") if h]
    except ValueError:
        fail(f"--remind takes hours like 24,2, not {remind!r}", 2)
    tc = {"move_hours": move_hours, "remind_hours": hours, "weekend_pause": weekend_pause,
          "on_timeout": on_timeout,
          "auto_vacation": (not league) if auto_vacation is None else auto_vacation}
    if clock == "bank":
        tc.update(clock="bank", bank_hours=bank_hours, increment_hours=increment_hours,
                  cap_hours=cap_hours)
    try:
        check(tc)
    except ValueError as e:
        fail(str(e), 2)
    return tc


def _side_name(seats, names) -> str:
    return "+".join(str(names[s]) for s in seats)


def bid_text(side: dict) -> str:
    if side.get("bid") is None:
        return "-"  # B13: the hand was not bid
    nils = side.get("nils", [])
    parts = [] if nils and len(nils) == len(side["seats"]) else [str(side["bid"])]
    if side.get("blind"):
        parts[-1] = "blind " + parts[-1]
    parts += [n["bid"] + ("" if n["made"] else "(x)") for n in nils]
    if side.get("moon"):  # B10
        return side["moon"]["bid"] + ("" if side["moon"]["made"] else "(x)")
    mo = side.get("mo")  # B12
    tail = f" {mo['call']}" + ("" if mo["made"] else "(x)") if mo else ""
    return "+".join(parts) + tail


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
            vals = [bid_text(s), s["tricks"], points, s["score"], s["total_bags"]]
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


def stop_on_signals() -> None:
    """SIGINT and SIGTERM (Ctrl-C, systemd's stop, `kill`) both stop the command as Ctrl-C
    does, so that it stops what it started before it goes. Set here, not inherited: a
    background job (`pbem serve &`) starts with SIGINT ignored. Only the main thread may
    set them (click's test runner may call from another)."""
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.default_int_handler)


def run_until_stopped(banner: str, stop) -> None:
    """Say what runs, wait for Ctrl-C (or SIGINT, SIGTERM), then stop it."""
    gc_tuning.for_long_running()
    click.echo(banner)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop()
