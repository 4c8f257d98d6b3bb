"""The write path: levels, the merge judge, and the writer that commits under the lock."""
