"""The web: move links, players' tables, score pads, starting games."""
