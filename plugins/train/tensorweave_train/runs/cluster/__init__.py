"""A training cluster: what it is, and forming it.

- ``spec``: ``TF_CONFIG`` read, checked and written (``Cluster``, ``cluster_config`` for
  ``--workers``/``--task``, ``validate_cluster``, ``ClusterError``); light, read by the
  command line before TensorFlow starts;
- ``forming``: a worker claims its port and waits for its peers (``wait_for_peers``,
  ``--cluster-timeout``, Ctrl-C and SIGTERM), and warns that TensorFlow's server is open.

Import the names from those modules (the package exports none).
"""
