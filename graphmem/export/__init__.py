"""The graph going out: networkx (``graph.py``), files (``formats.py``), a recall as a tree
(``explain.py``), the HTML page and its data (``viz.py``, ``vizdata.py``).

May import: ``write`` (argument checks), ``index``, ``storage``, ``text`` and the vocabulary;
never the API, ``owner`` or ``remote`` (a handle builds its own graph: ``GraphSource``)."""
