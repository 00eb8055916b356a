"""Outbox rows for what a move changed: a turn notice to each human who must act now,
and the result to everyone when the game ends. Written in the move's own transaction.
(Plain text for now; the mail issue renders the full turn mail.)"""

from .config import load
from .engine import legal, pretty, view


def mails(game, seats, players, st, events) -> list[dict]:
    if not events:
        return []
    cfg = load()
    out = []
    humans = {x.seat: x for x in seats if x.player_id and not x.robot}
    for seat in st.to_act():
        if seat in humans and legal(st, seat):
            out.append(_turn(cfg, game, humans[seat], players[humans[seat].player_id], st))
    if st.phase == "over":
        for x in humans.values():
            out.append(_mail(cfg, game, x, players[x.player_id], f"over:{game.id}:{x.seat}",
                             f"Game {game.id} is over", _score_line(st)))
    return out


def _turn(cfg, game, seat, player, st) -> dict:
    v = view(st, seat.seat)
    hand = " ".join(pretty(c) for c in v["hand"] or []) or "(not looked at yet)"
    moves = ", ".join(_action_text(a) for a in v["legal"])
    body = (f"Game {game.id}, move {st.seq}: your turn.\n\nYour hand: {hand}\n"
            f"Legal now: {moves}\n\n{_score_line(st)}\n")
    return _mail(cfg, game, seat, player, f"turn:{game.id}:{seat.seat}:{st.seq}",
                 f"Game {game.id}: your turn", body)


def _mail(cfg, game, seat, player, key, subject, body) -> dict:
    return {"game_id": game.id, "to_addr": player.email, "subject": subject, "body_text": body,
            "headers": {"Reply-To": f"play+{seat.token}@{cfg.mail_domain}",
                        "Auto-Submitted": "auto-generated"},
            "dedupe_key": key}


def _action_text(a) -> str:
    if a["type"] == "play":
        return pretty(a["card"])
    if a["type"] == "bid":
        return ("blind " if a.get("blind") else "") + str(a["bid"])
    if a["type"] == "pass":
        return f"pass {a['count']} cards"
    return a["type"].replace("_", " ")


def _score_line(st) -> str:
    scores = st.display_scores()
    return "Score: " + "; ".join(
        f"{'+'.join(str(x) for x in side)}: {scores[i]} ({st.bags[i]} bags)"
        for i, side in enumerate(st.sides))
