"""Sweeps on Optuna (search space, study, workers, pruning, pauses, results) and
cross-validation folds."""
