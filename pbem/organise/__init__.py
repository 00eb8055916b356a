"""Running leagues through the door (docs/leagues.md). Layer 5: each module here makes moves
through pbem.play; what it reads and writes besides is pbem.league (layer 3).

    seasons     starting seasons, dealing each round's games, substitutes, the league tick
    adjudicate  the organiser's rulings on a finished game
    care        the organiser's care of tables: more hours, a robot move, reminders, messages
    seeks       open seeks (issue 34): a game with anyone, dealt when full or robots fill it
"""
