"""The daily digest: one mail per player who chose `notify digest`, telling what happened
in each of their games since the last one. Run it once a day (`pbem digest`; the clock
will run it). Rows go to the outbox under a key per player and day, so a second run on
the same day sends nothing twice."""

from datetime import date

from sqlmodel import select

from .config import load
from .notify import DIGEST, seat_names
from .store.models import Game, Outbox, Player, Seat


def send_digests(store, today: date | None = None) -> int:
    """Queue today's digests; returns how many were queued."""
    today = today or date.today()
    cfg = load()
    queued = 0
    with store.session() as s:
        players = [p for p in s.exec(select(Player)).all()
                   if (p.prefs or {}).get("notify") == DIGEST]
    for player in players:
        queued += _digest(store, cfg, player, today)
    return queued


def _digest(store, cfg, player, today) -> int:
    key = f"digest:{player.id}:{today.isoformat()}"
    with store.session() as s:
        if s.exec(select(Outbox.id).where(Outbox.dedupe_key == key)).first():
            return 0
        seen = dict((player.prefs or {}).get("digest_seen", {}))
        rows = s.exec(select(Seat, Game).join(Game).where(Seat.player_id == player.id)).all()
        lines = []
        for seat, game in rows:
            st = store.state(s, game)
            store.keep(game.id, st)
            if st.seq <= seen.get(str(game.id), 0):
                continue
            lines.append(_game_line(s, st, game, seat, seen.get(str(game.id), 0)))
            seen[str(game.id)] = st.seq
        if not lines:
            return 0
        s.add(Outbox(to_addr=player.email, subject=f"pbem: your games, {today.isoformat()}",
                     body_text="What happened since your last digest:\n\n" + "\n".join(lines),
                     headers={"Auto-Submitted": "auto-generated",
                              "List-Unsubscribe": f"<mailto:pbem@{cfg.mail_domain}"
                                                  "?subject=notify%20every%20turn>"},
                     dedupe_key=key))
        p = s.get(Player, player.id)
        p.prefs = dict(p.prefs or {}, digest_seen=seen)
        s.add(p)
        s.commit()
        return 1


def _game_line(s, st, game, seat, since) -> str:
    seats = s.exec(select(Seat).where(Seat.game_id == game.id).order_by(Seat.seat)).all()
    players = {p.id: p for p in s.exec(select(Player).where(
        Player.id.in_([x.player_id for x in seats if x.player_id]))).all()}
    names = seat_names(seats, players)
    scores = st.display_scores()
    score = "; ".join(f"{' & '.join(names[x] for x in side)} {scores[i]}"
                      for i, side in enumerate(st.sides))
    if st.phase == "over":
        status = "the game is over"
    else:
        waiting = [names[x] for x in st.to_act()]
        status = "your turn" if seat.seat in st.to_act() else "waiting for " + ", ".join(waiting)
    return (f"Game {game.id}: {st.seq - since} moves, {st.hand_no} hands scored in all; "
            f"{score}; {status}.")
