"""`pbem game`, `pbem move`, `pbem replay`, `pbem verify`: games in the store and game logs
(docs/log-format.md)."""

import json

import click
from sqlmodel import select

from ..config import load
from ..engine import parse_action, pretty, score_pad
from ..engine.view import bid_words
from ..gamelog import LogError, read_log, replay_log
from ..play import Refused, import_log, start, submit
from ..store.games import create_game, seat_names
from ..store.games import export as export_game
from ..store.models import Game, Seat
from ..store.states import CorruptGame
from .common import (
    OPTION,
    build_rules,
    fail,
    open_store,
    pad_table,
    time_control,
    time_control_options,
)


@click.command("replay")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the score pad as JSON.")
def replay_cmd(file, as_json):
    """Replay a game log (FILE, or - for stdin) and print its score pad."""
    text = file.read()
    try:
        header = read_log(text)[0]
        st = replay_log(text)
    except LogError as e:
        fail(str(e), 1)
    pad = score_pad(st)
    if as_json:
        click.echo(json.dumps(pad, indent=2))
    else:
        click.echo(pad_table(pad, header["seats"]))


@click.group("game")
def game_group():
    """Games in the store. A SQLite database is created on first use; PostgreSQL needs
    `pbem db upgrade` first."""


def _load(store, game_id: int):
    """(game row, seat names, state) or exit 1 naming the problem."""
    with store.session() as s:
        game = s.get(Game, game_id)
        if game is None:
            fail(f"there is no game {game_id}", 1)
        try:
            st = store.state(s, game)
        except CorruptGame as e:
            fail(str(e), 1)
        return game, seat_names(s, game_id), st


@game_group.command("new")
@click.option("--rules", "rules_name", default="standard", show_default=True,
              metavar="PRESET")
@OPTION
@click.option("--seat", "seats", multiple=True, required=True, metavar="EMAIL|robot[:LEVEL]",
              help="One per seat, from seat 0: a player's address, or robot (at the rules' "
                   "level), or robot:easy, robot:medium, robot:hard.")
@click.option("--first-dealer", type=int, help="The seat that deals first (default: random).")
@click.option("--private", is_flag=True, help="Hide the score pad from the public.")
@time_control_options
def game_new(rules_name, options, seats, first_dealer, private, **clock_options):
    """Create a game and deal its first hand (robots then move: four robots play it out).
    Prints each seat's reply address play+TOKEN@DOMAIN (the token is secret to its player)."""
    rules = build_rules(rules_name, options)
    if first_dealer is not None and not 0 <= first_dealer < rules.players:
        fail(f"--first-dealer {first_dealer} is not a seat (0-{rules.players - 1})", 2)
    tc = time_control(**clock_options)
    store = open_store()
    try:
        gid = create_game(store, rules, list(seats), first_dealer, public=not private,
                          time_control=tc)
    except ValueError as e:
        fail(str(e), 2)
    st = start(store, gid).state
    with store.session() as s:
        rows = s.exec(_seats_query(Seat, gid)).all()
    click.echo(f"game {gid}: {rules.preset}, {_status_text(st)}")
    domain = load().mail_domain
    for row, name in zip(rows, seats, strict=True):
        robot = f"robot ({row.robot_level})" if row.robot_level else "robot"
        where = robot if row.robot else f"{name.strip().lower()}  play+{row.token}@{domain}"
        click.echo(f"  seat {row.seat}: {where}")


def _seats_query(seat_model, gid):
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
    store = open_store()
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
    game, names, st = _load(open_store(), game_id)
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
        if st.mo and st.mo["seat"] == i:
            bid += f" {st.mo['call']}"
        click.echo(f"  seat {i}: {name:<24} bid {bid:<10} tricks {st.won[i]}")
    if st.trick:
        click.echo("  trick: " + ", ".join(f"{s}:{pretty(c)}" for s, c in st.trick))
    click.echo(pad_table(pad, names))


@game_group.command("export")
@click.argument("game_id", metavar="GAME", type=int)
def game_export(game_id):
    """Write the game's log (docs/log-format.md) to stdout."""
    try:
        text = export_game(open_store(), game_id)
    except ValueError as e:
        fail(str(e), 1)
    click.echo(text, nl=False)


@game_group.command("import")
@click.argument("file", type=click.File("r", encoding="utf-8"))
def game_import(file):
    """A new game from a log (FILE, or - for stdin): an illegal log is refused whole,
    naming the seq, and nothing is written. Seats with an address ("@") become players, any
    other name a robot. The game then goes on as any other: if a deal or a robot's move is
    due, it is made. Prints the new game's id."""
    store = open_store()
    try:
        gid = import_log(store, file.read())
    except LogError as e:
        fail(str(e), 1)
    start(store, gid)
    click.echo(gid)


@click.command("move")
@click.argument("game_id", metavar="GAME", type=int)
@click.argument("seat", type=int)
@click.argument("words", metavar="ACTION...", nargs=-1, required=True)
@click.option("--seq", type=int, help="The move number the mover saw (refused if stale).")
@click.option("--ref", help="A reference that applies once (a repeat changes nothing).")
def move_cmd(game_id, seat, words, seq, ref):
    """Make SEAT's move in GAME through the one door, as a player would ("bid 4", "nil",
    "play QH"); robots then move. For organisers and tests."""
    store = open_store()
    game, _names, st = _load(store, game_id)
    if not 0 <= seat < st.n:
        fail(f"there is no seat {seat} in game {game_id} (seats 0-{st.n - 1})", 1)
    try:
        action = parse_action(" ".join(words), st.rules)
    except ValueError as e:
        fail(f"cannot read {' '.join(words)!r}: {e}", 1)
    try:
        result = submit(store, game_id, seat, action, expect_seq=seq, source="cli", ref=ref)
    except Refused as e:
        fail(e.reason, 1)
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
        return f"seat {seat} bids {bid_words(ev)}"
    if kind == "play":
        return f"seat {seat} plays {pretty(ev['card'])}"
    if kind == "pass":
        return f"seat {seat} passes {len(ev['cards'])} cards"
    return f"seat {seat}: {kind.replace('_', ' ')}"


@click.command("verify")
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
        fail(str(e), 1)
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


COMMANDS = [game_group, move_cmd, replay_cmd, verify_cmd]
