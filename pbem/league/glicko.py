"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013), beside the Elo
ratings of pbem.league.standings. Pure: no I/O.

A Glicko-2 rating comes with its deviation (RD, how unsure it is: a player who has played
little has a wide one) and a volatility. Glickman rates players by rating periods; a league
game is its own period for those who play it, taken in the order the games ended. So:

- Everyone starts at 1500, RD 350, volatility 0.06; the system constant tau is 0.5.
- A side is one opponent: its rating is the mean of its members' ratings and its RD the
  root mean square of theirs (both on the Glicko-2 scale), before the game.
- Each member of a side is updated as one rating period against every other side, with
  score 1, 1/2 or 0 by the order of finish (standings.places: the winner first, then by
  score, equal scores tied).
- A player's RD does not grow between games (no periods without play are counted).
"""

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .standings import RatedGame, check_rated_game, outcome, places

SCALE = 173.7178  # Glicko-2's scale: mu = (r - 1500) / SCALE
START, START_RD, START_VOL, TAU = 1500.0, 350.0, 0.06, 0.5
EPSILON = 1e-6  # the volatility iteration's tolerance (Glickman's step 5)


@dataclass(frozen=True)
class Glicko:
    rating: float
    rd: float
    vol: float
    games: int = 0


def update(player: Glicko, opponents: Sequence[tuple[float, float, float]],
           tau: float = TAU) -> Glicko:
    """One rating period of Glickman's steps 2 to 8: `opponents` are (rating, RD, score)."""
    if not opponents:
        return player
    mu, phi = (player.rating - START) / SCALE, player.rd / SCALE
    v_inv = delta_sum = 0.0
    for rating, rd, score in opponents:
        mu_j, g_j = (rating - START) / SCALE, _g(rd / SCALE)
        e = 1 / (1 + math.exp(-g_j * (mu - mu_j)))
        v_inv += g_j * g_j * e * (1 - e)
        delta_sum += g_j * (score - e)
    v = 1 / v_inv
    sigma = _volatility(phi, player.vol, v, v * delta_sum, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Glicko(START + SCALE * mu_new, SCALE * phi_new, sigma, player.games + 1)


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm (bounded: it converges in a
    few dozen steps; 100 is a cap, never reached in practice)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - d) / (2 * d * d) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0 and k < 100:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(100):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def glicko2(games: Iterable[RatedGame],
            before: Mapping[Hashable, Glicko] | None = None) -> dict[Hashable, Glicko]:
    """Ratings after `games`, each (sides, scores, winner), in the order they finished,
    from the ratings `before` them (none: everyone new)."""
    rating: dict[Hashable, Glicko] = dict(before or {})
    for sides, scores, winner in games:
        members = [list(dict.fromkeys(side)) for side in sides]
        check_rated_game(members, scores, winner)
        for who in (w for side in members for w in side):
            rating.setdefault(who, Glicko(START, START_RD, START_VOL))
        as_opponent = [_side(rating, side) for side in members]
        place = places(scores, winner)
        for i, side in enumerate(members):
            against = [(*as_opponent[j], outcome(place[i], place[j]))
                       for j in range(len(members)) if j != i]
            for who in side:
                rating[who] = update(rating[who], against)
    return rating


def _side(rating: dict, side: list) -> tuple[float, float]:
    """A side as one opponent: mean rating, root mean square RD."""
    n = len(side)
    return (sum(rating[w].rating for w in side) / n,
            math.sqrt(sum(rating[w].rd ** 2 for w in side) / n))
