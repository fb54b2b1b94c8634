"""Datasets in the store: versioned arrays, tagged samples and tag queries."""
