"""The memories table: LanceDB schema, in-process snapshot, safe filters, write lock, upkeep."""
