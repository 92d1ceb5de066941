"""The in-process mirror that search and recall read, its vector index, adjacency and snapshots."""
