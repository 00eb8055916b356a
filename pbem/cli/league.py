"""`pbem league ...`: leagues from the command line. The command line is the server's
operator: it may do what a league's organiser may, and enters players without the mailed
confirmation (the operator vouches for them)."""

import json
import sys
from dataclasses import asdict
from datetime import date, timedelta
from pathlib import Path

import click

from ..i18n import _, ngettext
from ..league import boards, webhooks
from ..league.archive import export_league, write_folder
from ..league.manage import (
    ENTRY_KINDS,
    OPERATOR,
    PAIRINGS,
    LeagueError,
    LeagueSpec,
    accept_partner,
    add_season,
    create_league,
    get_league,
    join,
    latest_season,
    withdraw,
)
from ..league.pause import pause, resume
from ..league.reports import fixtures, ratings, season_of, season_standings
from ..league.verdicts import describe as describe_ruling
from ..organise import care
from ..organise.adjudicate import adjudicate, deal_replay
from ..organise.adjudicate import parse as parse_ruling
from ..organise.seasons import start_season, substitute
from ..store.webhooks import KINDS
from .common import (
    OPTION,
    build_rules,
    fail,
    open_store,
    time_control,
    time_control_options,
)

DAY = click.DateTime(formats=["%Y-%m-%d"])


def _day(value) -> date | None:
    return value.date() if value else None


def _refused(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except LeagueError as e:
        fail(str(e), 1)


@click.group("league")
def league_group():
    """Leagues: seasons of rounds, standings and ratings (docs/leagues.md)."""


@league_group.command("new")
@click.option("--name", required=True, help="The league's name.")
@click.option("--organiser", required=True, metavar="EMAIL", help="Who runs it.")
@click.option("--rules", "rules_name", default="standard", show_default=True, metavar="PRESET")
@OPTION
@click.option("--entries", type=click.Choice(ENTRY_KINDS), default="single", show_default=True,
              help="single: players, partners drawn for each game; pair: fixed partnerships.")
@click.option("--pairing", type=click.Choice(PAIRINGS), default="round-robin",
              show_default=True)
@click.option("--rounds", type=click.IntRange(1, 100), help="Rounds a season (Swiss; a round "
              "robin is cut short to it). Default: the field's own.")
@click.option("--max-entries", type=click.IntRange(min=2), help="Entries at most.")
@click.option("--starts", type=DAY, help="The first season's first day (default: in a week).")
@click.option("--ends", type=DAY, help="No round starts after this day (default: 6 months on).")
@click.option("--stale-hours", type=click.IntRange(min=1), default=168, show_default=True,
              help="A table this long without a move is flagged to the organiser.")
@click.option("--timeout-forfeit", type=click.IntRange(min=1), help="A side whose seats time "
              "out this many times in one game loses it in the league table.")
@time_control_options
def league_new(name, organiser, rules_name, options, entries, pairing, rounds, max_entries,
               starts, ends, stale_hours, timeout_forfeit, **clock_options):
    """Create a league and its first season (taking entries until it starts). Prints the
    organiser's page and the join link (the organiser is mailed both)."""
    from ..config import load

    first = _day(starts) or date.today() + timedelta(days=7)
    spec = LeagueSpec(organiser, name, build_rules(rules_name, options), first,
                      _day(ends) or first + timedelta(days=182), entry=entries,
                      pairing=pairing, time_control=time_control(**clock_options, league=True),
                      rounds=rounds, max_entries=max_entries, stale_hours=stale_hours,
                      timeout_forfeit=timeout_forfeit)
    league = _refused(create_league, open_store(), spec)
    base = load().base_url
    click.echo(f"league {league.id}: {league.name}")
    click.echo(f"  organiser's page: {base}/o/{league.admin_token}")
    click.echo(f"  join link:        {base}/j/{league.join_token}")


@league_group.command("list")
def league_list():
    """Every league: id, name, format, its latest season."""
    from sqlmodel import select

    from ..store.models import League

    store = open_store()
    with store.session() as s:
        for league in s.exec(select(League).order_by(League.id)).all():
            season = latest_season(s, league.id)
            click.echo(f"{league.id:>4}  {league.name:<30} {league.rules['preset']:<15} "
                       f"{league.entry:<6} {league.pairing:<11} season {season.number} "
                       f"{season.status}, round {season.round} of {season.rounds or '?'}")


@league_group.command("show")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.option("--season", "number", type=int, help="Which season (default: the latest).")
@click.option("--json", "as_json", is_flag=True, help="Standings, fixtures and ratings as JSON.")
def league_show(league_id, number, as_json):
    """A season's standings and fixtures, and the league's ratings."""
    store = open_store()
    with store.session() as s:
        league = _refused(get_league, s, league_id)
        season = _refused(season_of, s, league_id, number) if number else \
            latest_season(s, league_id)
        table = season_standings(s, season)
        rounds, rated = fixtures(s, season), ratings(s, league)
        dup = {"rounds": boards.rounds(league, season), "standings": boards.table(s, season)} \
            if league.pairing == "duplicate" else None
    if as_json:
        shown = {"league": league_id, "season": season.number, "status": season.status,
                 "round": season.round, "rounds": season.rounds,
                 "standings": [asdict(r) for r in table], "fixtures": rounds, "ratings": rated}
        click.echo(json.dumps(shown | ({"duplicate": dup} if dup else {}), indent=2))
        return
    click.echo(f"{league.name}, season {season.number} ({season.status}, round "
               f"{season.round} of {season.rounds or '?'}; {season.starts} to {season.ends})")
    click.echo(f"{'#':>3} {'entry':>5} {'name':<24} {'P':>3} {'W':>3} {'L':>3} {'bye':>3} "
               f"{'pts':>4} {'for':>6} {'agst':>6} {'diff':>6} {'bags':>4} nils")
    for r in table:
        out = f" (withdrawn: {r.note})" if r.note else ""
        click.echo(f"{r.rank:>3} {r.entry:>5} {r.name[:24]:<24} {r.played:>3} {r.won:>3} "
                   f"{r.lost:>3} {r.byes:>3} {r.points:>4} {r.points_for:>6} "
                   f"{r.points_against:>6} {r.diff:>6} {r.bags:>4} "
                   f"{r.nils_made}/{r.nils_failed}{out}")
    if dup:
        _duplicate_table(dup)
    for rnd in rounds:
        click.echo(f"round {rnd['round']}:")
        for t in rnd["tables"]:
            sides = " v ".join(" & ".join(x["names"]) + _score(t, x) +
                               (" (won)" if x["won"] else "") for x in t["sides"])
            ruled = f" (ruled: {t['ruling']})" if t.get("ruling") else ""
            again = (_(" (replayed as game %(game)s)") % {"game": t["replayed_by"]}
                     if t.get("replayed_by") else "")
            click.echo(f"  table {t['board']}: game {t['game_id']}, {t['status']}: {sides}"
                       f"{ruled}{again}")
        if rnd["byes"]:
            click.echo(f"  bye: {', '.join(rnd['byes'])}")
    for kind in ("players", "pairs"):
        if rated[kind]:
            click.echo(f"ratings ({kind}): " + ", ".join(f"{x['name']} {x['rating']:.0f}"
                                                          for x in rated[kind]))


def _duplicate_table(dup: dict) -> None:
    """A duplicate season's table and each round's commitment (and seed, once over)."""
    click.echo(f"duplicate: {'#':>3} {'entry':>5} {'name':<24} {'boards':>6} {'mp':>9} "
               f"{'%':>6} {'imps':>7}")
    for r in dup["standings"]:
        click.echo(f"           {r['rank']:>3} {r['entry']:>5} {r['name'][:24]:<24} "
                   f"{r['boards']:>6} {r['mp']:>4}/{r['top']:<4} {r['percent']:>6.2f} "
                   f"{r['imps']:>7.2f}")
    for x in dup["rounds"]:
        click.echo(f"round {x['round']} boards committed to {x['commitment']}"
                   + (f", seed {x['seed']}" if x["seed"] else " (seed shown when it is over)"))


def _score(table: dict, side: dict) -> str:
    """A side's score as the league counts it; as played where a ruling struck the game."""
    if table["status"] != "over":
        return ""
    return f" {side['played'] if side['score'] is None else side['score']}"


@league_group.command("join")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("email")
@click.option("--name", default="", help="The player's name (default: the address's first "
              "part).")
@click.option("--partner", metavar="EMAIL", help="The partner, in a league of pairs.")
def league_join(league_id, email, name, partner):
    """Enter a player (and partner) in the season taking entries: no confirmation mail."""
    store = open_store()
    entry = _refused(join, store, league_id, email, name, partner)
    if partner:
        _refused(accept_partner, store, entry.id, partner)
    click.echo(f"entry {entry.id}: {entry.name}")


@league_group.command("start")
@click.argument("league_id", metavar="LEAGUE", type=int)
def league_start(league_id):
    """Start the season taking entries now: entries close and round one is drawn."""
    store = open_store()
    season = _refused(start_season, store, league_id, OPERATOR)
    click.echo(ngettext("season %(season)s started: %(rounds)s round",
                        "season %(season)s started: %(rounds)s rounds", season.rounds)
               % {"season": season.number, "rounds": season.rounds})


@league_group.command("season")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.option("--starts", type=DAY, required=True)
@click.option("--ends", type=DAY, required=True)
def league_season(league_id, starts, ends):
    """Add the next season (the last one's entries are entered again)."""
    season = _refused(add_season, open_store(), league_id, OPERATOR, _day(starts), _day(ends))
    click.echo(f"season {season.number}: {season.starts} to {season.ends}")


@league_group.command("withdraw")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("entry_id", metavar="ENTRY", type=int)
@click.option("--strike", is_flag=True, help="Strike its games from the league table (for "
              "everyone); by default they stand.")
def league_withdraw(league_id, entry_id, strike):
    """Take an entry out (its number is in `pbem league show`)."""
    games = "struck" if strike else "stand"
    entry = _refused(withdraw, open_store(), league_id, OPERATOR, entry_id, games)
    click.echo(f"{entry.name} is out" + ("; its games are struck" if strike else ""))


@league_group.command("substitute")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("game_id", metavar="GAME", type=int)
@click.argument("seat", type=int)
@click.argument("who", metavar="EMAIL|robot[:LEVEL]")
def league_substitute(league_id, game_id, seat, who):
    """WHO plays SEAT of GAME from now on (the log records the hand-over); robot:hard (or
    easy, medium) seats a robot of that level."""
    result = _refused(substitute, open_store(), league_id, OPERATOR, game_id, seat, who)
    ev = result.events[0]
    click.echo(f"game {game_id} seat {seat}: {ev['in']} in place of {ev['out']} "
               f"(seq {ev['seq']})")


@league_group.command("rule")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("game_id", metavar="GAME", type=int)
@click.argument("words", metavar="RULING", nargs=-1, required=True)
@click.option("--reason", required=True, help="Why: shown with the ruling everywhere.")
def league_rule(league_id, game_id, words, reason):
    """Rule on a finished GAME: win SIDE, loss SIDE, replay, adjust POINTS... (one a side,
    e.g. -- +20 -20), or undo MOVE (sides from 1). The league counts the game so."""
    ruling = _refused(parse_ruling, list(words), reason)
    result = _refused(adjudicate, open_store(), league_id, OPERATOR, game_id, ruling)
    ev = result.events[0]
    click.echo(f"game {game_id}: ruling at seq {ev['seq']}: {describe_ruling(ev)}")


@league_group.command("replay")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("game_id", metavar="GAME", type=int)
def league_replay(league_id, game_id):
    """Deal again GAME, ruled a replay: a new table of its round, the same seats; its
    result counts in the league in place of GAME's."""
    new_id = _refused(deal_replay, open_store(), league_id, OPERATOR, game_id)
    click.echo(_("game %(game)s is replayed as game %(new)s, dealt now")
               % {"game": game_id, "new": new_id})


@league_group.command("more-hours")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("game_id", metavar="GAME", type=int)
@click.argument("hours", type=int)
def league_more_hours(league_id, game_id, hours):
    """Give GAME's table HOURS more (a fired `wait` timeout gets a deadline again)."""
    seats = _refused(care.more_hours, open_store(), league_id, OPERATOR, game_id, hours)
    click.echo(f"game {game_id}: {hours} more hours for seat(s) {seats}")


@league_group.command("robot-move")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("game_id", metavar="GAME", type=int)
@click.option("--seat", type=int, help="The seat to move for (default: the first to act).")
@click.option("--level", type=click.Choice(["easy", "medium", "hard"]),
              help="The robot's level (default: the game's rules option robot).")
def league_robot_move(league_id, game_id, seat, level):
    """The robot makes this one move in GAME, for a seat to act."""
    result = _refused(care.robot_move, open_store(), league_id, OPERATOR, game_id, seat,
                      level)
    click.echo(f"game {game_id}: the robot moved (now at seq {result.state.seq})")


@league_group.command("remind")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("game_id", metavar="GAME", type=int)
def league_remind(league_id, game_id):
    """Mail GAME's players to act that they are asked to move now (once a move)."""
    n = _refused(care.remind, open_store(), league_id, OPERATOR, game_id)
    click.echo(f"game {game_id}: {n} reminded")


@league_group.command("message")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.option("--subject", required=True)
@click.option("--text", required=True, help="The message (or @FILE to read it from a file).")
@click.option("--season", type=int, help="Only this season's players.")
def league_message(league_id, subject, text, season):
    """Mail every player of the league (or of one season), through the outbox."""
    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    n = _refused(care.message, open_store(), league_id, OPERATOR, subject, text, season)
    click.echo(f"mailed {n} player(s)")


@league_group.command("pause")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.option("--season", type=int, help="Only this season (default: every running one).")
def league_pause(league_id, season):
    """Stop every deadline of the league's games (players are mailed); `resume` restarts
    them with the time they had left."""
    _seasons_done(pause, league_id, season, "paused")


@league_group.command("resume")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.option("--season", type=int, help="Only this season (default: every paused one).")
def league_resume(league_id, season):
    """Restart a paused league's deadlines with the time they had left (players are mailed)."""
    _seasons_done(resume, league_id, season, "resumed")


def _seasons_done(fn, league_id, season, done) -> None:
    numbers = _refused(fn, open_store(), league_id, OPERATOR, season)
    click.echo(f"{done} season(s) {', '.join(map(str, numbers))}")


@league_group.command("export")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def league_export(league_id, folder):
    """Write league.json and every game's log (games/game-NNNNNN.jsonl) into FOLDER."""
    files = _refused(export_league, open_store(), league_id, whole=True)
    write_folder(files, folder)
    click.echo(f"wrote {len(files)} files to {folder}")


@league_group.group("webhook")
def webhook_group():
    """The league's webhooks: its news posted to Discord, Slack, Matrix (a hookshot
    generic webhook) or as plain JSON (docs/leagues.md, "Webhooks")."""


@webhook_group.command("add")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("kind", type=click.Choice(KINDS))
@click.argument("url", metavar="URL|-")
def webhook_add(league_id, kind, url):
    """Post the league's news to URL (https; `-` reads it from the standard input, so it
    stays out of the shell's history). At most 5 a league."""
    if url == "-":
        url = sys.stdin.readline(webhooks.MAX_URL + 2).strip()
    hook = _refused(webhooks.add, open_store(), league_id, OPERATOR, kind, url)
    click.echo(f"webhook {hook.id}: {hook.kind} {hook.hint}")


@webhook_group.command("list")
@click.argument("league_id", metavar="LEAGUE", type=int)
def webhook_list(league_id):
    """The league's webhooks: id, kind, host and last characters (never the whole URL),
    posts waiting, posts given up and the last failure."""
    for h in _refused(webhooks.listed, open_store(), league_id, OPERATOR):
        failure = (f"; last failure {h.last_error} at {h.last_error_at:%Y-%m-%d %H:%M} UTC"
                   if h.last_error and h.last_error_at else "")
        click.echo(f"{h.id:>4}  {h.kind:<8} {h.hint}  {h.queued} waiting, {h.failed} given "
                   f"up{failure}")


@webhook_group.command("remove")
@click.argument("league_id", metavar="LEAGUE", type=int)
@click.argument("hook_id", metavar="ID", type=int)
def webhook_remove(league_id, hook_id):
    """Remove a webhook (its id from `list`), and the posts still waiting for it."""
    hook = _refused(webhooks.remove, open_store(), league_id, OPERATOR, hook_id)
    click.echo(f"webhook {hook.id} removed: {hook.kind} {hook.hint}")


COMMANDS = [league_group]
