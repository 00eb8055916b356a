"""The game log (docs/log-format.md): JSON Lines, a header, then one event a line.

    {"format": "pbem/1", "rules": {...}, "seats": ["ann", "bob", "cy", "di"], "first_dealer": 0}
    {"seq": 1, "type": "deal", "dealer": 0, "hands": [[...], [...], [...], [...]]}

The engine does no I/O; this module turns text into (header, rules, events) and back.
"""

import json

from .engine import IllegalAction, Rules, RulesError, State, advance, new_game

FORMAT = "pbem/1"


class LogError(ValueError):
    """A log that cannot be read or replayed; names the seq (or the line) at fault."""

    def __init__(self, reason: str, seq: int | None = None, line: int | None = None):
        where = f"seq {seq}" if seq is not None else f"line {line}"
        super().__init__(f"{where}: {reason}")
        self.reason, self.seq, self.line = reason, seq, line


def make_header(rules: Rules, seats, first_dealer: int = 0) -> dict:
    return {"format": FORMAT, "rules": rules.to_dict(), "seats": list(seats),
            "first_dealer": first_dealer}


def write_log(header: dict, events) -> str:
    return "".join(json.dumps(x) + "\n" for x in [header, *events])


def export(rules: Rules, events, seats=None, first_dealer: int = 0) -> str:
    """A whole log for a game; seats default to "seat0", "seat1", ..."""
    seats = seats or [f"seat{i}" for i in range(rules.players)]
    return write_log(make_header(rules, seats, first_dealer), events)


def finished_hands(events: list[dict]) -> list[dict]:
    """The events before the hand in play: all of them unless the last deal is still
    unrevealed, else those before that deal (its cards, and every event after it, stay
    hidden). What may be shown of a running game."""
    deals = [i for i, ev in enumerate(events) if ev.get("type") == "deal"]
    if not deals:
        return list(events)
    last = events[deals[-1]]
    if any(ev.get("type") == "reveal" and ev.get("deal") == last.get("seq")
           for ev in events[deals[-1]:]):
        return list(events)
    return list(events[:deals[-1]])


def read_log(lines) -> tuple[dict, Rules, list]:
    """Parse a log (text, or an iterable of lines) into (header, rules, events). Checks the
    header and that each event is a JSON object; whether the events are legal is replay's
    job. Blank lines are ignored."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    rows = [(n, s) for n, s in enumerate(lines, 1) if s.strip()]
    if not rows:
        raise LogError("the log is empty: it needs a header line", line=1)
    header = _header(*rows[0])
    rules = _rules(header, rows[0][0])
    events = []
    for seq, (n, text) in enumerate(rows[1:], 1):
        try:
            ev = json.loads(text)
        except ValueError as e:
            raise LogError(f"line {n} is not JSON ({e})", seq=seq, line=n) from None
        if not isinstance(ev, dict):
            raise LogError(f"line {n} is not a JSON object", seq=seq, line=n)
        events.append(ev)
    return header, rules, events


def _header(n: int, text: str) -> dict:
    try:
        header = json.loads(text)
    except ValueError as e:
        raise LogError(f"the header is not JSON ({e})", line=n) from None
    if not isinstance(header, dict):
        raise LogError("the header is not a JSON object", line=n)
    if header.get("format") != FORMAT:
        raise LogError(f"unknown log format {header.get('format')!r}: expected {FORMAT!r}",
                       line=n)
    return header


def _rules(header: dict, n: int) -> Rules:
    try:
        rules = Rules.stored(header.get("rules"))
    except RulesError as e:
        raise LogError(f"bad rules: {e}", line=n) from None
    seats = header.get("seats")
    if not isinstance(seats, list) or len(seats) != rules.players:
        raise LogError(f"the rules seat {rules.players} players but the header names "
                       f"{len(seats) if isinstance(seats, list) else 'no'} seats", line=n)
    fd = header.get("first_dealer", 0)
    if not isinstance(fd, int) or isinstance(fd, bool) or not 0 <= fd < rules.players:
        raise LogError(f"first_dealer {fd!r} is not a seat", line=n)
    return rules


def replay_log(text) -> State:
    """The state at the end of a log; LogError names the seq and reason of the first event
    that is malformed or illegal (nothing is skipped)."""
    header, rules, events = read_log(text)
    st = new_game(rules, header.get("first_dealer", 0))
    for seq, ev in enumerate(events, 1):
        try:
            advance(st, ev)
        except IllegalAction as e:
            # name the seq the event should have: a tampered "seq" field is the error itself
            raise LogError(str(e), seq=seq) from None
    return st
