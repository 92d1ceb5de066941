"""The process that owns a store: where a store lives and hand-over (``backends.py``), the calls
of a store open here (``local.py``, ``writer.py``), the state its handles share
(``shared.py``), the write-behind journal, feedback, upkeep and clusters.

May import: ``remote`` (to serve and to be a client), ``recall``, ``export``, ``write``,
``index``, ``storage``, ``text`` and the vocabulary; never the API or above."""
