"""What the league counts of a game an organiser ruled on (docs/leagues.md, "Rulings").
Pure: from the result as played (pbem.league.results.result_of) and the ruling in force
(the latest `adjudicate` event not taken back), the result the standings and the ratings
count, or None when the game is to be replayed (it counts for nothing)."""

from collections.abc import Iterable

from ..i18n import _


def in_force(events: Iterable[dict]) -> dict | None:
    """The ruling in force after a game's log events (the export's logs, read again)."""
    rulings: list[dict] = []
    for ev in events:
        if ev.get("type") != "adjudicate":
            continue
        if ev["result"] == "undo":
            rulings = [r for r in rulings if r["seq"] != ev["undo"]]
        else:
            rulings.append(ev)
    return rulings[-1] if rulings else None


def counted(played: dict, ruling: dict | None) -> dict | None:
    """The result as the league counts it: `played` changed by `ruling`."""
    if ruling is None:
        return played
    kind, scores = ruling["result"], list(played["scores"])
    if kind == "replay":
        return None
    if kind == "win":
        return dict(played, winner=ruling["side"])
    if kind == "loss":  # the best other side by score wins (the first of equals)
        others = [i for i in range(len(scores)) if i != ruling["side"]]
        return dict(played, winner=max(others, key=lambda i: (scores[i], -i)))
    if kind == "adjust":  # the scores change; the winner stays the table's
        return dict(played, scores=[a + b for a, b in zip(scores, ruling["points"],
                                                           strict=True)])
    raise ValueError(f"not a ruling: {kind!r}")


def describe(ruling: dict) -> str:
    """A ruling in words, for pages and mails (sides are numbered from 1 there)."""
    kind, values = ruling["result"], {"reason": ruling["reason"]}
    if kind == "win":
        return _("a win for side %(side)s (%(reason)s)") % dict(values, side=ruling["side"] + 1)
    if kind == "loss":
        return _("a loss for side %(side)s (%(reason)s)") % dict(values, side=ruling["side"] + 1)
    if kind == "replay":
        return _("to be replayed: the game counts for nothing (%(reason)s)") % values
    if kind == "adjust":
        points = ", ".join(_("side %(side)s %(points)s") % {"side": i + 1, "points": f"{x:+d}"}
                           for i, x in enumerate(ruling["points"]))
        return _("scores adjusted by %(points)s (%(reason)s)") % dict(values, points=points)
    return _("the ruling at move %(move)s taken back (%(reason)s)") % dict(
        values, move=ruling["undo"])
