"""Stored hand reviews (issue 33) and a seat's hints: reading them for the score pad, and
the clock's job that reviews finished hands outside any write (pbem.clock.review_tick)."""

from typing import Any

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from ..engine import pretty
from ..engine.review import review
from ..engine.rules import Rules
from ..i18n import _, ngettext
from .games import events
from .models import Game, HandReview
from .states import Store

TICK_REVIEWS = 1  # reviews worked out a tick (each bounded by REVIEW_NODES: seconds)
# what is stored for a hand whose log gives no review (its game gone): never pending again
NOT_REVIEWED: dict[str, Any] = {"supported": False, "par": None, "seats": []}


def of_game(s: Session, game_id: int) -> dict[int, dict[str, Any]]:
    """The game's stored reviews by hand number (1 first)."""
    rows = s.exec(select(HandReview.hand, HandReview.data)
                  .where(HandReview.game_id == game_id, col(HandReview.data).is_not(None))).all()
    return {hand: dict(data) for hand, data in rows if data is not None}


def mark(s: Session, game_id: int, before: int, after: int) -> None:
    """A write took a game from `before` finished hands to `after`: the new ones wait for
    their review (marked in the write's transaction, so none is missed and the clock reads
    what is pending, not every game); an undo back over a hand's end drops its review."""
    if after < before:
        s.execute(delete(HandReview).where(col(HandReview.game_id) == game_id,
                                           col(HandReview.hand) > after))
        return
    have = set(s.exec(select(HandReview.hand).where(HandReview.game_id == game_id,
                                                    col(HandReview.hand) > before)).all())
    s.add_all([HandReview(game_id=game_id, hand=h) for h in range(before + 1, after + 1)
               if h not in have])


def pending(store: Store, limit: int = TICK_REVIEWS) -> list[tuple[int, int]]:
    """(game, hand) pairs of finished hands waiting for their review, oldest first."""
    with store.reader() as s:
        return [(g, h) for g, h in s.exec(
            select(HandReview.game_id, HandReview.hand).where(col(HandReview.data).is_(None))
            .order_by(col(HandReview.id)).limit(limit)).all()]


def work_out(store: Store, game_id: int, hand: int) -> dict[str, Any] | None:
    """The review of a finished hand, from a read (pure work after it)."""
    with store.reader() as s:
        game = s.get(Game, game_id)
        if game is None:
            return None
        rules, first = Rules.stored(game.rules), game.first_dealer
        log = events(s, game_id)
    return review(rules, log, first, hand - 1, seed=game_id)


def save(store: Store, game_id: int, hand: int, data: dict[str, Any]) -> bool:
    """Store a review in a short write; False if one was there already (two clocks)."""
    with store.session() as s:
        done = s.connection().execute(update(HandReview).where(
            col(HandReview.game_id) == game_id, col(HandReview.hand) == hand,
            col(HandReview.data).is_(None)).values(data=data))
        s.commit()
    return bool(done.rowcount)


def describe(data: dict[str, Any], names: list[str], labels: list[str]) -> list[str]:
    """A stored review in the reader's words: par beside tricks taken for each side, then
    each seat's costliest card. `names`: by seat; `labels`: by side."""
    if not data.get("supported", True):
        return [_("Not reviewed: the solver does not play these rules (a dummy, or the "
                  "big joker's rake).")]
    out = []
    par = data.get("par")
    if par is None:
        out.append(_("Par not worked out: too many ways to play on."))
    else:
        for label, side in zip(labels, par["sides"], strict=False):
            out.append(_("%(side)s: par %(par)s, took %(took)s (from trick %(trick)s)")
                       % {"side": label, "par": side["par"], "took": side["took"],
                          "trick": par["from_trick"]})
    for name, worst in zip(names, data.get("seats") or [], strict=False):
        if worst is not None:
            out.append(ngettext(
                "%(name)s: %(card)s at trick %(trick)s; the hard robot's %(robot)s takes "
                "%(num)s trick more", "%(name)s: %(card)s at trick %(trick)s; the hard "
                "robot's %(robot)s takes %(num)s tricks more", worst["cost"])
                % {"name": name, "card": pretty(worst["card"]), "trick": worst["trick"],
                   "robot": pretty(worst["robot"]), "num": worst["cost"]})
    return out


def hint_words(names: list[str], taken: list[int]) -> str:
    """"hints: N" for each seat that took any, for the score pad; "" if none did."""
    return "; ".join(_("%(name)s, hints: %(num)s") % {"name": name, "num": n}
                     for name, n in zip(names, taken, strict=False) if n)
