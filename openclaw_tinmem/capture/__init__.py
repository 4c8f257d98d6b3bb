"""Automatic capture: the journal, cleaning and redaction, extraction, the background worker."""
