"""pbem: Spades by email.

The code stands in layers, lowest first. A module imports only from its own layer or below,
and no imports (at module level or inside a function) go round in a circle; the most
specific name in this table gives a module its layer. tests/test_layers.py reads this table
and every import, and fails on a module without a layer, an upward import or a cycle.

    1 rules      pbem.engine pbem.gamelog pbem.simulate
    2 store      pbem.store pbem.config pbem.signing pbem.asks pbem.gc_tuning
                 pbem.numbers pbem.logs pbem.metrics pbem.i18n
    3 reactions  pbem.notify pbem.compose pbem.deadlines pbem.orders pbem.vacation pbem.digest
                 pbem.league pbem.talk pbem.owntime pbem.seatclock pbem.table
                 pbem.calendar_feed
    4 door       pbem.play
    5 callers    pbem.mail pbem.web pbem.cli pbem.clock pbem.serve pbem.organise
                 pbem.privacy

1. The rules: pure and deterministic, no I/O (pbem.engine imports nothing else of pbem); the
   log format; robot games.
2. Tables, sessions, the game-state cache, the outbox; settings, the players' languages
   (pbem.i18n), and the collector's pace for servers; the operator's log lines and metrics;
   signed links, and the mailed links that ask an address's owner before anything is done
   for it.
3. What a move writes in its own transaction, computed from the state and its new events
   (the mails, the next deadlines, a league game's result), and what writes without moving
   a game (vacations, digests, leagues' entries and rounds). None of it imports the door.
4. The one door every move goes through (pbem.play): it runs the reactions in a fixed order.
5. What calls the door: inbound mail, the web, the command line, the clock's ticker, and
   the running of leagues (pbem.organise): seasons that deal games and seat substitutes,
   the organiser's rulings and care of tables.
"""

__version__ = "0.1.0"
