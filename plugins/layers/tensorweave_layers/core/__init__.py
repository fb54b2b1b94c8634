"""Small layers without a family: ``Activation``, ``PReLU``, ``Param``, ``Constant``, ``OneHot``,
``ToSparse``/``ToDense``.

Import the public names from ``tensorweave_layers``."""
