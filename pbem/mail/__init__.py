"""Mail: the inbound side (the SMTP/LMTP handler, reading mail, the commands). How our
mail looks is pbem.compose; what mail a move sends is pbem.notify."""
