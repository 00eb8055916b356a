"""A player's own data (issue 31): `export` gathers everything we hold about one player as
JSON, each game as that player may see it (pbem.privacy.export); `forget` stops all mail to
them and puts an anonymous handle in place of their address and name in every table, while
every game log stays replayable and every standing stays as it was (pbem.privacy.forget,
pbem.privacy.scrub). The callers: the home page (pbem.web.my_data), the account address's
`export` and `forget me` (pbem.mail.commands), and `pbem player export|forget`."""
