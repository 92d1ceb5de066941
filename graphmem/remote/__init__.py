"""What crosses processes: the calls' protocol (``calls.py``: ``MemoryBackend``, ``CALLS``),
the HTTP server an owner runs (``server.py``) and the client other processes use
(``client.py``). A client loads no numpy and no Kùzu.

May import: ``write`` (its pure item checks), ``index``, ``storage``, ``text`` and the
vocabulary; never ``owner``, the API or above."""
