"""Language heuristics with no LLM, numpy or Kùzu: tokens, tags, entities, phrasing, conflicts, slots, the secret screen."""
