// graphmem core schema. Applied in order on open; every statement is idempotent.
// {dim} is replaced with the embedding dimension recorded for the store.

CREATE NODE TABLE IF NOT EXISTS Meta(key STRING PRIMARY KEY, value STRING);

CREATE NODE TABLE IF NOT EXISTS Memory(
    id STRING PRIMARY KEY,
    content STRING,
    kind STRING,
    scope STRING,
    project STRING,
    session_id STRING,
    source STRING,
    created_at TIMESTAMP,
    updated_at TIMESTAMP,
    last_accessed TIMESTAMP,
    valid_from TIMESTAMP,
    valid_until TIMESTAMP,
    access_count INT64,
    strength INT64,
    confidence DOUBLE,
    trust DOUBLE,
    active BOOLEAN,
    pinned BOOLEAN,
    superseded_by STRING,
    triggers STRING[],
    file_paths STRING[],
    metadata STRING,
    reinforcements STRING[],
    content_hash STRING,
    embedding FLOAT[{dim}]
);

CREATE NODE TABLE IF NOT EXISTS Tag(
    name STRING PRIMARY KEY,
    kind STRING,
    count INT64,
    created_at TIMESTAMP
);

CREATE NODE TABLE IF NOT EXISTS Cluster(
    id STRING PRIMARY KEY,
    label STRING,
    centroid FLOAT[{dim}],
    size INT64,
    created_at TIMESTAMP
);

CREATE REL TABLE IF NOT EXISTS HasTag(FROM Memory TO Tag, source STRING, created_at TIMESTAMP);

CREATE REL TABLE IF NOT EXISTS InCluster(FROM Memory TO Cluster, probability DOUBLE, created_at TIMESTAMP);

CREATE REL TABLE IF NOT EXISTS RelatesTo(
    FROM Memory TO Memory,
    weight DOUBLE,
    co_access INT64,
    source STRING,
    created_at TIMESTAMP,
    updated_at TIMESTAMP
);

CREATE REL TABLE IF NOT EXISTS Supersedes(FROM Memory TO Memory, reason STRING, created_at TIMESTAMP, updated_at TIMESTAMP);

CREATE REL TABLE IF NOT EXISTS Contradicts(FROM Memory TO Memory, reason STRING, created_at TIMESTAMP, updated_at TIMESTAMP);

CREATE REL TABLE IF NOT EXISTS DerivedFrom(FROM Memory TO Memory, reason STRING, created_at TIMESTAMP, updated_at TIMESTAMP);
