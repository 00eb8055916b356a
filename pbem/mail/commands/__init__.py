"""Mail commands, one module each (after Mailman 3's email commands): each a small class
with its name, help, an example and `process` (pbem.mail.commands.base). The registry
(pbem.mail.commands.registry) lists them and which address runs which; the runner
(pbem.mail.commands.runner) does a mail's lines in order and sums them up; every refusal's
words are in pbem.mail.commands.errors. Adding a command is adding a module and its line
in the registry (and docs/mail.md, which tests/test_mail_command_docs.py checks)."""
