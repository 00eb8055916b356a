"""A whole game through the one door, on each database."""

from pbem.engine import choose, preset, view
from pbem.gamelog import replay_log
from pbem.play import start, submit
from pbem.store.games import create_game, export


def test_a_robot_table_plays_a_whole_game_through_submit(store):
    gid = create_game(store, preset("standard"), ["ann@example.org", "robot", "robot", "robot"],
                      first_dealer=1)
    result = start(store, gid)
    n = 0
    while result.state.phase != "over":
        st = result.state
        assert st.to_act() == [0]
        action = choose(view(st, 0), seed=n)
        result = submit(store, gid, 0, action, expect_seq=st.seq, source="cli", ref=f"m{n}")
        n += 1
    replayed = replay_log(export(store, gid))
    assert replayed.display_scores() == result.state.display_scores()
    assert replayed.winner == result.state.winner is not None
