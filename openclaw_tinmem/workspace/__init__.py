"""IronClaw-style workspace documents in the same LanceDB database."""
