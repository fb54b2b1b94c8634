"""tensorweave-conflict-demo: a pack whose ``Linear.v1`` clashes with tensorweave-layers'.

With both installed, ``tw.layers["Linear.v1"]`` raises ``ComponentConflictError`` naming
both distributions; ``tw.layers["tensorweave-conflict-demo:Linear.v1"]`` and
``tw.layers["tensorweave-layers:Linear.v1"]`` pick one each, and
``TENSORWEAVE_BLOCK=tensorweave-conflict-demo`` removes this one altogether.
"""
