"""Shaping a seat's view for pages: cards by suit, moves with signed links, pad rows."""

from ..compose import offered
from ..engine import view
from ..engine.tricks import table_for
from ..engine.view import sort_cards
from . import data
from .words import SUIT_NAMES, action_label, card_text, undo_label

RED = {"H", "D"}


def card(c: str, table) -> dict:
    s = table.suit[c]
    return {"code": c, "text": card_text(c), "red": c[1] in RED and c not in ("BJ", "LJ"),
            "suit": s}


def side_labels(st, names) -> list[str]:
    return [" & ".join(names[s] for s in side) for side in st.sides]


def seat_view(t, seat: int | None) -> dict:
    """The seat's view (the only game data a page gets), made ready for the template."""
    st = t.state
    table = table_for(st.rules)
    v = view(st, seat)
    v["hand_by_suit"] = []
    if v["hand"]:
        groups: dict[str, list] = {}
        for c in sort_cards(v["hand"], table):
            groups.setdefault(table.suit[c], []).append(card(c, table))
        v["hand_by_suit"] = [(SUIT_NAMES[s], cs) for s, cs in groups.items()]
    v["trick_cards"] = [dict(card(x["card"], table), seat=x["seat"], dummy=x.get("dummy"))
                        for x in v["trick"]]
    if (v.get("dummy") or {}).get("hand"):  # T4: the exposed dummy
        v["dummy_cards"] = [card(c, table) for c in sort_cards(v["dummy"]["hand"], table)]
    v["tricks_done"] = [{"winner": tr["winner"],
                         "cards": [dict(card(x["card"], table), seat=x["seat"])
                                   for x in tr["cards"]]} for tr in v["tricks"]]
    v["labels"] = side_labels(st, t.names)
    if seat is not None:
        v["partner_offered"] = seat not in st.offers and any(
            s in st.offers for s in st.sides[st.side_of[seat]])
    if v.get("undo"):
        v["undo_label"] = undo_label(v["undo"])
    if seat is not None:
        v["around"] = around(v, st, t.names, seat)
    return v


def answers(t) -> list[dict] | None:
    """Each seat of a game not yet dealt, and whether it has said yes (None once dealt)."""
    if t.game.status != "open":
        return None
    return [{"seat": x.seat, "name": t.names[x.seat], "robot": x.robot,
             "accepted": x.accepted} for x in t.seats]


# Where each seat sits on the drawn table, in play order from the viewer at the bottom
# (play goes to the left): cells of a 3 by 3 grid whose middle is the felt.
PLACES = {2: ["b", "t"], 3: ["b", "l", "r"], 4: ["b", "l", "t", "r"],
          5: ["b", "l", "tl", "tr", "r"], 6: ["b", "bl", "tl", "t", "tr", "br"]}


def around(v: dict, st, names, seat: int) -> list[dict]:
    """The seats around the table from `seat`'s chair: each with its name, bid, tricks, the
    card it put on this trick, and whether it is to act, leads or dealt. Public facts only."""
    table = table_for(st.rules)
    played = {x["seat"]: card(x["card"], table) for x in v["trick"]
              if not x.get("dummy")}  # T4: the dummy's card shows beside its hand
    leader = v["trick"][0]["seat"] if v["trick"] else (
        v["to_act"][0] if st.phase == "play" and len(v["to_act"]) == 1 else None)
    partners = set(st.sides[st.side_of[seat]]) - {seat}
    out = []
    for i, place in enumerate(PLACES[st.n]):
        s = (seat + i) % st.n
        out.append({"seat": s, "name": names[s], "place": place, "you": s == seat,
                    "partner": s in partners, "bid": v["bids"][s], "blind": v["blind"][s],
                    "won": v["won"][s], "card": played.get(s), "turn": s in v["to_act"],
                    "leads": s == leader, "dealer": s == v["dealer"]})
    return out


def move_links(t, seat: int, v: dict) -> list[dict]:
    """Every legal move of `seat`, each with a signed token naming game, seat, move, seq."""
    signer = data.signer()
    table = table_for(t.state.rules)
    order = {c: i for i, c in enumerate(sort_cards(
        [a["card"] for a in v["legal"] if a["type"] == "play"], table))}
    out = []
    for a in sorted(offered(v), key=lambda a: order.get(a.get("card"), -1)):
        if a["type"] == "pass":
            continue  # passing picks cards: a form on the table page, not a link
        token = signer.dumps({"g": t.game.id, "s": seat, "a": a, "q": t.state.seq})
        out.append({"label": action_label(a), "token": token, "action": a})
    return out


def pad_rows(pad: dict) -> list[dict]:
    rows = []
    for h in pad["hands"]:
        rows.append({"hand": h["hand"], "dealer": h["dealer"], "sides": h["sides"]})
    return rows
