"""The in-process mirror that search and recall read (``mirror.py``), its approximate vector
index (``ann.py``), adjacency arrays (``adjacency.py``) and saved snapshots (``snapshot.py``).

May import: ``storage``, ``text`` and the vocabulary."""
