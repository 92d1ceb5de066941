"""Language heuristics with no LLM, numpy or Kùzu: tokens and BM25 (``lexical.py``), tags,
entities, phrasing, conflict signals, one value or several (``slots.py``), the secret screen
(``screen.py``, ``secret_patterns.py``).

May import: the vocabulary only."""
