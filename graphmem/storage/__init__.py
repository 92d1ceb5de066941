"""The database: the only importer of kuzu, the Cypher sandbox, schema migrations."""
