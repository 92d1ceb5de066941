"""Deterministic write planning: a memory's checks (``items.py``, pure: clients run them too),
argument checks (``validate.py``), planning against the mirror (``planner.py``), batches
applied to Kùzu (``batch.py``), request ids, imports and bulk ingest.

May import: ``index``, ``storage``, ``text`` and the vocabulary."""
