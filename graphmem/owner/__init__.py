"""The one process that owns a store: shared state, the write-behind journal, background work, clusters."""
