"""The metrics, one module per family (classification, AUC, confusion counts, F-beta,
precision at recall, IoU and Dice, mean IoU, regression errors, perplexity, exact match, the
mean), each with its streaming state. Registered as ``tw.metrics["<name>.v1"]``."""
