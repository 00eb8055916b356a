"""What one seat may see (OpenSpiel's observation): the only thing pages and mails get.

A seat sees its own hand (once it has looked), the cards it passed and received, the
table, and what the rules make public. A spectator (seat None) sees no hand at all until
the hand is over; then everyone sees the whole finished deal.
"""

from .acts import undoable
from .dummy import add_dummy
from .game import legal, score_pad


def view(st, seat: int | None = None) -> dict:
    if seat is not None and not 0 <= seat < st.n:
        raise ValueError(f"seat {seat} is not at this table")
    table = st.table
    v = {
        "seat": seat,
        "seq": st.seq,
        "preset": st.rules.preset,
        "rules": st.rules.to_dict(),
        "players": st.n,
        "phase": st.phase,
        "hand_no": st.hand_no + (0 if st.phase in ("deal", "over") else 1),
        "dealer": st.dealer,
        "to_act": st.to_act(),
        "sides": score_pad(st)["sides"],
        "hand_sizes": [len(h) for h in st.hands],
        "bids": list(st.bids),
        "blind": list(st.blind),
        "won": list(st.won),
        "trick": [{"seat": s, "card": c} for s, c in st.trick],
        "tricks": [{"cards": [{"seat": s, "card": c} for s, c in t], "winner": w}
                   for t, w in st.tricks],
        "spades_broken": st.broken,
        "history": st.history,
        "over": st.phase == "over",
        "winner": st.winner,
        "hand": None,
        "legal": legal(st, seat) if seat is not None else [],
        "talk": list(st.talk),  # table talk is public: every seat and the log see it
        "offers": sorted(st.offers),  # seats that offered to resign this hand
    }
    rec = st.deal_record
    if rec and rec["commitment"]:
        v["deal_commitment"] = {"seq": rec["seq"], "sha256": rec["commitment"],
                                "salt": st.reveals.get(rec["seq"])}
    if st.revealed_deal:  # the last finished hand's commitment and salt (its cards are in
        rd = st.revealed_deal  # the log: pages show them on a page of their own)
        v["revealed_deal"] = {"seq": rd["seq"], "sha256": rd["commitment"], "salt": rd["salt"]}
    if st.mo is not None:  # B12: a Mo or Bemo call is made aloud
        v["mo"] = dict(st.mo)
    if st.raising and st.phase == "bid":  # B7: bids now keep or raise by one
        v["raising"] = True
    if st.no_trump:  # B14: a no-trump bid is public
        v["no_trump"] = list(st.no_trump)
    if st.aces_called:  # S7: so is the four aces announcement
        v["aces"] = list(st.aces_called)
    if st.comeout_side is not None:
        v["come_out_side"] = st.comeout_side
    if st.rules.dummy:  # T4: the dummy's cards, face up once the first card is led
        add_dummy(st, v)
    if seat is not None:
        v["undo"] = undoable(st, seat)  # the move this seat may take back, if any
        v["looked"] = st.looked[seat]
        if st.looked[seat]:
            v["hand"] = sort_cards(st.hands[seat], table)
            v["passed"] = list(st.passed_away[seat])
            v["received"] = list(st.passed_to[seat])
            v["discards"] = list(st.discards[seat])
        if st.phase == "draw" and st.turn == seat and st.stock:
            v["drawn"] = st.stock[0]
            if st.rules.draw_two:  # T5a: both cards are seen, then one is kept
                v["drawn_second"] = st.stock[1]
    if st.hand_over():
        v["last_deal"] = st.last_deal
    return v


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 bag", "0 bags", "2 bags" ("1 child", "2 children" with `many`)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def bid_words(a: dict) -> str:
    """A bid as words: "4", "blind 7", "nil", "moon", "4 little mo", "5 aces" (B12, S7)."""
    words = ("blind " if a.get("blind") else "") + str(a["bid"])
    if a.get("no_trump"):
        words += " no trump"
    if a.get("mo"):
        words += f" {a['mo']}"
    return words + (" aces" if a.get("aces") else "")


def sort_cards(cards, table=None) -> list[str]:
    """By suit (spades, hearts, clubs, diamonds: colours alternate), high card first;
    jokers and promoted cards lead the spades."""
    order = {"S": 0, "H": 1, "C": 2, "D": 3}
    if table is None:
        return sorted(cards, key=lambda c: (order.get(c[1], 0), c))
    return sorted(cards, key=lambda c: (order[table.suit[c]], -table.power[c]))
