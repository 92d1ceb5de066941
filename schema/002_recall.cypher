// Recall bookkeeping: contexts that found nothing (gaps) and recalls awaiting feedback.

CREATE NODE TABLE IF NOT EXISTS Gap(
    id STRING PRIMARY KEY,
    context STRING,
    best_score DOUBLE,
    session_id STRING,
    created_at TIMESTAMP
);
