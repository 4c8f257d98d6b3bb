"""Process-wide tuning, in one place: what tinmem changes about the process it runs in.

- ``overrides``: a process-wide setting changed only while one of tinmem's threads needs it,
  and given back when the last one is done;
- ``blas``: BLAS on the calling thread for tinmem's small products;
- ``urgency``: a short interpreter switch interval while the host waits on a hook;
- ``priority``: the capture worker's thread below the host's;
- ``allocator``: fewer malloc arenas in the long-running processes tinmem runs itself.
"""
