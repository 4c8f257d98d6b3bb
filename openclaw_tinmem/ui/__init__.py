"""``tinmem ui``: a local memory browser — search, open, edit, forget, restore, a chart."""
