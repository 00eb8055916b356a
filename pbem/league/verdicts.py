"""What the league counts of a game an organiser ruled on (docs/leagues.md, "Rulings").
Pure: from the result as played (pbem.league.results.result_of) and the ruling in force
(the latest `adjudicate` event not taken back), the result the standings and the ratings
count, or None when the game is to be replayed (it counts for nothing)."""

from collections.abc import Iterable


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
    kind = ruling["result"]
    if kind == "win":
        what = f"a win for side {ruling['side'] + 1}"
    elif kind == "loss":
        what = f"a loss for side {ruling['side'] + 1}"
    elif kind == "replay":
        what = "to be replayed: the game counts for nothing"
    elif kind == "adjust":
        what = "scores adjusted by " + ", ".join(
            f"side {i + 1} {x:+d}" for i, x in enumerate(ruling["points"]))
    else:
        what = f"the ruling at move {ruling['undo']} taken back"
    return f"{what} ({ruling['reason']})"
