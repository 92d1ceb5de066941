// Exactly-once client writes (graphmem.idempotency): the last request ids the owner applied,
// each with its outcomes (memory ids and actions), written in the same transaction as the write.

CREATE NODE TABLE IF NOT EXISTS Request(
    id STRING PRIMARY KEY,
    n INT64,
    at TIMESTAMP,
    outcomes STRING
);
