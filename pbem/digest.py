"""The daily digest: one mail per player who chose `notify digest` (what happened in each
of their games since the last one) or `turns daily` (every game, in every league, where it
is their move, with a link for each: instead of a mail a turn). Run it once a day (`pbem
digest`). Rows go to the outbox under a key per player and day, so a second run on the same
day sends nothing twice."""

from datetime import UTC, date

from babel.dates import format_datetime
from sqlalchemy import func
from sqlmodel import Session, col, select

from .config import Settings, load
from .engine import State
from .i18n import _, current, language
from .notify import DIGEST
from .store import prefs
from .store.games import mailable, table_of
from .store.models import Deadline, Fixture, Game, League, Move, Outbox, Player, Season, Seat
from .store.states import Store
from .table import seat_names


def send_digests(store: Store, today: date | None = None) -> int:
    """Queue today's digests; returns how many were queued."""
    today = today or date.today()
    cfg = load()
    queued = 0
    with store.session() as s:
        players = [p for p in s.exec(select(Player)).all()
                   if mailable(p) and ((p.prefs or {}).get("notify") == DIGEST
                                       or daily_turns(p))]
    for player in players:
        with language(prefs.language(player)):
            queued += _digest(store, cfg, player, today)
    return queued


def _digest(store: Store, cfg: Settings, player: Player, today: date) -> int:
    key = f"digest:{player.id}:{today.isoformat()}"
    moves = your_moves(store, _id(player)) if daily_turns(player) else []
    with store.session() as s:
        if s.exec(select(Outbox.id).where(Outbox.dedupe_key == key)).first():
            return 0
        news = _news(s, store, player) if (player.prefs or {}).get("notify") == DIGEST else []
        if not news and not moves:
            return 0
        parts = [_("It is your move in:") + "\n" + "\n".join(moves)] if moves else []
        if news:
            parts.append(_("What happened since your last digest:") + "\n\n" + "\n".join(news))
        s.add(Outbox(to_addr=player.email,
                     subject=_("pbem: your games, %(day)s") % {"day": today.isoformat()},
                     body_text="\n\n".join(parts) + "\n",
                     headers={"Auto-Submitted": "auto-generated", "Content-Language": current()},
                     dedupe_key=key))
        s.commit()  # with the games it has told of (digest_seen): never told twice
        return 1


def _news(s: Session, store: Store, player: Player) -> list[str]:
    """A line for each game that moved since the last digest; remembers where each was.
    Only games with news are read (their states at once), not every game ever played."""
    seen = dict((player.prefs or {}).get("digest_seen", {}))
    seated = s.exec(select(Seat, Game).join(Game).where(Seat.player_id == player.id)
                    .order_by(col(Game.id))).all()
    last = dict(s.exec(select(Move.game_id, func.max(Move.seq)).where(
        col(Move.game_id).in_([g.id for _, g in seated])).group_by(col(Move.game_id))).all())
    rows = [(seat, game) for seat, game in seated
            if last.get(_id(game), 0) > seen.get(str(game.id), 0)]
    states = store.states(s, [_id(g) for _, g in rows])
    lines = []
    for seat, game in rows:
        st = states[_id(game)]
        lines.append(_game_line(s, st, game, seat, seen.get(str(game.id), 0)))
        seen[str(game.id)] = st.seq
    for gid, st in states.items():
        store.keep(gid, st)
    p = s.get_one(Player, player.id)
    p.prefs = dict(p.prefs or {}, digest_seen=seen)
    s.add(p)
    return lines


def daily_turns(player: Player) -> bool:
    return (player.prefs or {}).get("turns") == "daily"


def your_moves(store: Store, player_id: int) -> list[str]:
    """One line for each game (in any league, or none) where it is the player's move: the
    game, its league and round, when it is due, and the link to the player's table. Only
    games in play, in five queries however many there are."""
    base = load().base_url
    with store.reader() as s:
        rows = s.exec(select(Seat.game_id, Seat.seat, Seat.token).join(Game).where(
            Seat.player_id == player_id, Game.status == "playing")
            .order_by(col(Game.id))).all()
        ids = [g for g, _, _ in rows]
        where = {g: " " + _("(%(league)s, round %(round)s)") % {"league": name, "round": r}
                 for g, name, r in s.exec(
            select(Fixture.game_id, League.name, Fixture.round)
            .join(Season, col(Season.id) == col(Fixture.season_id)).join(League)
            .where(col(Fixture.game_id).in_(ids))).all()}
        states = store.states(s, ids)
        timeouts = s.exec(select(Deadline.game_id, Deadline.seat, Deadline.seq, Deadline.due)
                          .where(col(Deadline.game_id).in_(ids), Deadline.kind == "timeout",
                                 Deadline.state == "pending")
                          .order_by(col(Deadline.id))).all()
    for gid, st in states.items():
        store.keep(gid, st)
    due = {(g, seat): when for g, seat, seq, when in timeouts if seq == states[g].move_seq}
    lines = []
    for gid, seat, token in rows:
        if seat in states[gid].to_act():
            when = due.get((gid, seat))
            values = {"game": gid, "where": where.get(gid, ""), "link": f"{base}/t/{token}"}
            if when:
                values["due"] = format_datetime(when, "EEE dd MMM HH:mm 'UTC'", tzinfo=UTC,
                                                locale=current())
                lines.append(_("Game %(game)s%(where)s, due %(due)s: %(link)s") % values)
            else:
                lines.append(_("Game %(game)s%(where)s: %(link)s") % values)
    return lines


def _game_line(s: Session, st: State, game: Game, seat: Seat, since: int) -> str:
    seats, players = table_of(s, seat.game_id)
    names = seat_names(seats, players)
    scores = st.display_scores()
    score = "; ".join(f"{' & '.join(names[x] for x in side)} {scores[i]}"
                      for i, side in enumerate(st.sides))
    if st.phase == "over":
        status = _("the game is over")
    elif seat.seat in st.to_act():
        status = _("your turn")
    else:
        status = _("waiting for %(names)s") % {"names": ", ".join(names[x] for x in st.to_act())}
    said = "".join("\n  " + _("%(name)s said: %(text)s") % {"name": names[t["seat"]],
                                                            "text": t["text"]}
                   for t in st.talk if t["seq"] > since)  # the latest (TALK_KEEP): the log all
    return _("Game %(game)s: %(moves)s moves, %(hands)s hands scored in all; %(score)s; "
             "%(status)s.") % {"game": game.id, "moves": st.seq - since, "hands": st.hand_no,
                               "score": score, "status": status} + said


def _id(row: Game | Player) -> int:
    """A stored row's id (None only before it is written)."""
    assert row.id is not None
    return row.id
