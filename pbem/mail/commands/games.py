"""games: the player's games, with their seat and status."""

from sqlmodel import col, select

from ...i18n import N_, _
from ...store.models import Game, Seat
from .base import Command, Context


class Games(Command):
    name, help, example = "games", N_("list my games"), "games"

    def process(self, ctx: Context, args: str) -> str:
        with ctx.store.session() as s:
            rows = s.exec(select(Seat, Game).join(Game).where(
                Seat.player_id == ctx.my_id).order_by(col(Game.id))).all()
        if not rows:
            return _("games: you have no games")
        lines = ["  " + _("game %(game)s (%(preset)s), seat %(seat)s: %(status)s") % {
            "game": g.id, "preset": g.rules.get("preset"), "seat": x.seat,
            "status": _(STATUS.get(g.status, g.status))} for x, g in rows]
        return _("games:") + "\n" + "\n".join(lines)


# a game's status as a player reads it (pbem.store.models.Game.status)
STATUS = {"open": N_("open"), "playing": N_("playing"), "over": N_("over"),
          "abandoned": N_("abandoned")}
