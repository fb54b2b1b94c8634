"""Streaming metrics: the accumulators every streaming state shares (``accumulators``) and
how a metric node finds its state (``states``)."""
