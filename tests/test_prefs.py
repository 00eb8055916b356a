"""A player's settings read from words (pbem.store.prefs)."""

from datetime import UTC, datetime

import pytest

from pbem.store import prefs
from pbem.store.models import Player


@pytest.mark.parametrize("words,days", [
    ("sat sun", [5, 6]), ("Saturday and Sunday", [5, 6]), ("weekends", [5, 6]),
    ("fri, sat", [4, 5]), ("wednesdays", [2]), ("thurs", [3]), ("none", [])])
def test_rest_days(words, days):
    assert prefs.parse_rest(words) == days


@pytest.mark.parametrize("words", ["someday", "mon tue wed thu", "", "sa", "sundae"])
def test_rest_days_refused(words):
    with pytest.raises(ValueError):
        prefs.parse_rest(words)


@pytest.mark.parametrize("words,hours", [("23-7", [23, 7]), ("22:00 - 06:00", [22, 6]),
                                         ("1 to 9", [1, 9]), ("off", None), ("0-24", None)])
def test_quiet_hours(words, hours):
    if hours is None and words != "off":
        with pytest.raises(ValueError):
            prefs.parse_quiet(words)
    else:
        assert prefs.parse_quiet(words) == hours


@pytest.mark.parametrize("words", ["8-23", "9", "25-3", "7:30-9", "x-y"])
def test_quiet_hours_refused(words):
    with pytest.raises(ValueError):
        prefs.parse_quiet(words)


def test_zones_by_any_case_and_the_local_clock():
    assert prefs.parse_zone(" america/new_york ") == "America/New_York"
    with pytest.raises(ValueError, match="not a time zone"):
        prefs.parse_zone("Europe/Atlantis")
    ann = Player(email="a@x.org", prefs={"zone": "Asia/Tokyo"})
    assert prefs.local(ann, datetime(2027, 1, 1, 20, tzinfo=UTC)).hour == 5
    gone = Player(email="b@x.org", prefs={"zone": "No/Such"})  # stored, then removed
    assert prefs.zone(gone).key == "UTC"
    assert prefs.get(None, "merge") == 0 and prefs.rest_days(ann) == frozenset()


def test_update_keeps_other_keys_and_removes_none(store):
    with store.session() as s:
        p = Player(email="c@x.org", prefs={"notify": "digest", "cap": 5})
        s.add(p)
        s.commit()
        pid = p.id
    got = prefs.update(store, pid, zone="UTC", cap=None)
    assert got.prefs == {"notify": "digest", "zone": "UTC"}
