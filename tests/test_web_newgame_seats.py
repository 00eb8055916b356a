"""The new-game form shows as many seat boxes as its preset seats (issue 34): four for a
four-player game, not six; a preset with more seats, chosen and sent, comes back with its
seats shown and the missing one named, nothing made."""

import re

from sqlmodel import select

from pbem.store.models import Game, Outbox
from tests.web_helpers import csrf, posted


def _seat_boxes(page: str) -> list[str]:
    return re.findall(r'name="(seat\d+)"', page)


def test_the_form_shows_the_presets_seats(store, client):
    assert _seat_boxes(client.get("/new").text) == [f"seat{i}" for i in range(4)]
    assert len(_seat_boxes(client.get("/new?preset=cutthroat-3").text)) == 3
    assert len(_seat_boxes(client.get("/new?preset=six-handed").text)) == 6
    assert len(_seat_boxes(client.get("/new?preset=nosuch").text)) == 4
    form = {"csrf": csrf(client), "you": "a@x.test", "preset": "six-handed",
            "seat0": "a@x.test", "seat1": "robot", "seat2": "robot", "seat3": "robot"}
    r = posted(client, "/new", form, to="/new")
    assert 'class="error"' in r.text and "give seat 4 an email address" in r.text
    assert _seat_boxes(r.text) == [f"seat{i}" for i in range(6)]
    assert 'value="six-handed" selected' in r.text
    with store.session() as s:
        assert s.exec(select(Game)).all() == [] and s.exec(select(Outbox)).all() == []
