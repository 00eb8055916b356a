"""An organiser's ruling on a finished game (the `adjudicate` event, docs/log-format.md):
the result the league counts in place of the one played, with the reason. The cards, the
score pad and the winner the table played to stay as they were: a ruling only changes what
the league table and the ratings count. The rulings in force are kept in `st.rulings`, in
the order they were made; the latest in force decides (pbem.organise.adjudicate)."""

from .acts import clean_talk
from .errors import IllegalAction

RULINGS = ("win", "loss", "replay", "adjust", "undo")
MAX_REASON = 500  # characters of a ruling's reason
MAX_POINTS = 10_000  # a score adjustment, up or down, per side


def _need(cond, msg):
    if not cond:
        raise IllegalAction(msg)


def check_adjudicate(st, ev) -> None:
    _need(st.phase == "over", "a game is adjudicated once it is over")
    kind, reason = ev.get("result"), ev.get("reason")
    _need(kind in RULINGS, f"a ruling is one of {', '.join(RULINGS)}, not {kind!r}")
    _need(isinstance(reason, str) and 0 < len(reason) <= MAX_REASON
          and reason == clean_talk(reason),
          f"a ruling gives its reason: one line of up to {MAX_REASON} characters")
    if kind in ("win", "loss"):
        side = ev.get("side")
        _need(side.__class__ is int and 0 <= side < len(st.sides),
              f"side {side!r} is not a side of this game (0 to {len(st.sides) - 1})")
    elif kind == "adjust":
        points = ev.get("points")
        _need(isinstance(points, list) and len(points) == len(st.sides)
              and all(x.__class__ is int and abs(x) <= MAX_POINTS for x in points)
              and any(points), f"an adjustment gives each of the {len(st.sides)} sides "
              f"a whole number of points (-{MAX_POINTS} to {MAX_POINTS}), not all 0")
    elif kind == "undo":
        _need(any(r["seq"] == ev.get("undo") for r in st.rulings),
              f"there is no ruling in force at seq {ev.get('undo')!r} to take back")


def step_adjudicate(st, ev) -> None:
    if ev["result"] == "undo":
        st.rulings = [r for r in st.rulings if r["seq"] != ev["undo"]]
    else:
        st.rulings.append(dict(ev))
