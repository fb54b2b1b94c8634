"""The losses, one module per family: cross-entropies, focal, regression, margin, divergence,
sparsemax, Sinkhorn, sampled softmax and NCE, CTC, sequences, and mask overlap (Dice,
Tversky). Registered as ``tw.losses["<name>.v1"]``."""
