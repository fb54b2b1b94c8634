"""Runs: the stored records and their queries, the handle that writes one as training goes
(with its backlog while the store is away), the filters and the ``RecordRun.v1`` callback."""
