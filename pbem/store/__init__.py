"""The game store: tables, the move log, the outbox."""
