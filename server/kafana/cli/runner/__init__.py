"""`kafana tournament run --server`: an event played through a server, its bots via the SDK."""
