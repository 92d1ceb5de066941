"""Ranking over the mirror, never the database: seeds, the walk, chains, lifecycle scores."""
