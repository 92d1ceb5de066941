"""Ranking over the mirror, never the database: what a recall reads (``scope.py``), seeds and
fusion (``cascade.py``), the walk (``walk.py``), chains through bridge entities
(``chains.py``), lifecycle scores (``lifecycle.py``).

May import: ``write``, ``index``, ``storage``, ``text`` and the vocabulary."""
