"""games: the player's games, with their seat and status."""

from sqlmodel import col, select

from ...store.models import Game, Seat
from .base import Command, Context


class Games(Command):
    name, help, example = "games", "list my games", "games"

    def process(self, ctx: Context, args: str) -> str:
        with ctx.store.session() as s:
            rows = s.exec(select(Seat, Game).join(Game).where(
                Seat.player_id == ctx.my_id).order_by(col(Game.id))).all()
        if not rows:
            return "games: you have no games"
        lines = [f"  game {g.id} ({g.rules.get('preset')}), seat {x.seat}: {g.status}"
                 for x, g in rows]
        return "games:\n" + "\n".join(lines)
