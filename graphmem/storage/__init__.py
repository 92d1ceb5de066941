"""The database: the only importer of kuzu (``engine.py``), every Cypher statement graphmem
writes (``store.py``, ``migrations.py``, ``exports.py``), the Cypher sandbox (``sandbox.py``,
``sandbox_worker.py``, ``cypher_guard.py``, ``landlock.py``) and the disk's margin.

May import: the vocabulary only."""
