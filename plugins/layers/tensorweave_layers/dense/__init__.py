"""The dense layers of the pack (import them from ``tensorweave_layers``)."""
