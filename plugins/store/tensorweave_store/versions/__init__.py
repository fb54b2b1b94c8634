"""Model versions: a run's model stored under a name, resolved by ``NAME@VERSION``."""
