"""Cards that play themselves (issue 14): a third of all card plays decide nothing. When
the seat to play has one legal card, it is forced; a player may also opt in to cards of
equal value (one suit, touching: no card between them that is not in the player's hand or
in a finished trick),
of which the lowest goes, since whichever went the hand would go the same. Only what the
player can see decides it, so whether a card plays itself tells them nothing new."""


def auto_card(st, seat: int, equal: bool = False) -> str | None:
    """The card that plays itself for `seat` now, or None."""
    if st.phase != "play" or st.turn != seat:
        return None
    cards = st.playable(seat)
    if len(set(cards)) == 1:
        return cards[0]
    if equal and cards and st.rules.decks == 1 and _equal(st, seat, cards):
        return min(cards, key=st.table.power.__getitem__)
    return None


def _equal(st, seat, cards) -> bool:
    suit, power = st.table.suit, st.table.power
    if len({suit[c] for c in cards}) != 1:
        return False
    lo, hi = min(power[c] for c in cards), max(power[c] for c in cards)
    # a card on the trick now is not gone yet: with QH on it, KH wins and JH does not
    seen = set(st.hand_of(seat)) | {c for trick, _ in st.tricks for _, c in trick}
    return all(c in seen for c in st.table.deck
               if suit[c] == suit[cards[0]] and lo < power[c] < hi)
