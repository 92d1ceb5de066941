"""Deterministic write planning: arguments checked, items planned against the mirror, batches applied."""
