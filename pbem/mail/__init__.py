"""Mail: inbound (the SMTP/LMTP handler, parsing, commands) and outbound (rendering)."""
