"""A league's news for its webhooks (docs/leagues.md, "Webhooks"): a round opens, a game's
result (a duplicate round's only once the round is over), a pause or a resume, the
organiser's message, a season's end. Each is queued (pbem.store.webhooks.queue) by the
writer of that news, in its own transaction, so news is posted once it is written and never
lost. The text is in the organiser's language; no piece of news holds a card, only names,
scores and links. A league without webhooks costs one indexed read."""

from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from ..config import load
from ..engine import Rules
from ..i18n import N_, _, language
from ..store import prefs
from ..store.models import Entry, Fixture, League, Player, Season, Webhook
from ..store.models import now as utcnow
from ..store.webhooks import queue
from .rows import id_of


def _tell(s: Session, league: League, kind: str, key: str, words: tuple[str, dict],
          extra: dict[str, Any] | None = None) -> int:
    """Queue one piece of news: `words` (a template marked N_, its values) made in the
    organiser's language; `key` names it once."""
    if s.exec(select(Webhook.id).where(Webhook.league_id == league.id).limit(1)).first() is None:
        return 0
    boss = s.get(Player, league.organiser_id)
    with language(prefs.language(boss)):
        text = _(words[0]) % words[1]
    return queue(s, id_of(league), {
        "id": key, "league": league.name, "league_id": league.id, "kind": kind, "text": text,
        "link": f"{load().base_url}/l/{league.id}", "time": utcnow().isoformat(),
        **(extra or {})})


def round_opened(s: Session, league: League, season: Season, tables: int, byes: int) -> int:
    values = {"league": league.name, "season": season.number, "round": season.round,
              "rounds": season.rounds, "tables": tables}
    return _tell(s, league, "round", f"round:{season.id}:{season.round}",
                 (N_("%(league)s, season %(season)s: round %(round)s of %(rounds)s is open, "
                     "%(tables)s tables."), values),
                 {"season": season.number, "round": season.round, "tables": tables,
                  "byes": byes})


def result(s: Session, league: League, season: Season, fixture: Fixture) -> int:
    """A finished game's result as played (names and scores); nothing while it is hidden
    (a duplicate round still playing): pbem.league.rounds tells it when the round ends."""
    got = fixture.result or {}
    if got.get("hidden") or "scores" not in got:
        return 0
    sides = _sides(s, league, fixture)
    scores = list(got["scores"])
    text = ", ".join(f"{' & '.join(names)} {score}" for names, score in
                     zip(sides, scores, strict=False))
    winner = got.get("winner")
    values = {"league": league.name, "season": season.number, "round": fixture.round,
              "table": fixture.board, "game": fixture.game_id, "score": text}
    if isinstance(winner, int) and 0 <= winner < len(sides):
        words = N_("%(league)s, season %(season)s, round %(round)s, table %(table)s (game "
                   "%(game)s): %(score)s. %(winner)s won.")
        values["winner"] = " & ".join(sides[winner])
    else:
        words = N_("%(league)s, season %(season)s, round %(round)s, table %(table)s (game "
                   "%(game)s): %(score)s.")
    return _tell(s, league, "result", f"result:{fixture.id}", (words, values), {
        "season": season.number, "round": fixture.round, "table": fixture.board,
        "game": fixture.game_id, "link": f"{load().base_url}/g/{fixture.game_id}",
        "sides": [{"names": n, "score": x} for n, x in zip(sides, scores, strict=False)],
        "winner": winner})


def _sides(s: Session, league: League, fixture: Fixture) -> list[list[str]]:
    """Each side's entries' names, in seat order, each once (a pair sits at two seats)."""
    names = dict(s.exec(select(Entry.id, Entry.name).where(
        col(Entry.id).in_(set(fixture.seats)))).all())
    out = []
    for side in Rules.from_dict(league.rules).sides:
        ids = list(dict.fromkeys(fixture.seats[x] for x in side if x < len(fixture.seats)))
        out.append([names.get(x, "?") for x in ids])
    return out


_PAUSE = {"paused": N_("%(league)s, season %(season)s, is paused from %(when)s: no deadline "
                       "runs until it resumes."),
          "resumed": N_("%(league)s, season %(season)s, resumed at %(when)s: the deadlines "
                        "run again, each with the time it had left.")}


def paused(s: Session, league: League, season: Season, kind: str, now: datetime) -> int:
    when = now.strftime("%Y-%m-%d %H:%M UTC")
    return _tell(s, league, "pause" if kind == "paused" else "resume",
                 f"{kind}:{season.id}:{now.isoformat()}",
                 (_PAUSE[kind], {"league": league.name, "season": season.number,
                                 "when": when}), {"season": season.number})


def message(s: Session, league: League, number: int, subject: str, text: str) -> int:
    """The organiser's message to every player, as they wrote it."""
    return _tell(s, league, "message", f"message:{league.id}:{number}",
                 (N_("%(league)s: %(subject)s\n\n%(text)s"),
                  {"league": league.name, "subject": subject, "text": text}),
                 {"subject": subject})


def season_over(s: Session, league: League, season: Season) -> int:
    return _tell(s, league, "season-over", f"season-over:{season.id}",
                 (N_("%(league)s: season %(season)s is over."),
                  {"league": league.name, "season": season.number}),
                 {"season": season.number,
                  "link": f"{load().base_url}/l/{league.id}/s/{season.number}"})
