"""The store's commands (``tensorweave runs|models|datasets|sweep|cv``) and their reports."""
