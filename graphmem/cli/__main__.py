"""``python -m graphmem.cli``: the ``graphmem`` command (tests and the lingering owner start it so)."""

from .app import main

main()
