"""The shape and resampling layers (Reshape, Transpose, Flatten, padding, cropping, resizing) through the conformance kit."""

from tensorweave.testing import Case, test_conformance  # noqa: F401

TENSORWEAVE_CASES = [
    Case("tensorweave-layers:Reshape.v1", {"shape": (2, 2)}, inputs=[(None, 4)]),
    Case("tensorweave-layers:Transpose.v1", inputs=[(None, 2, 3)]),
    Case("tensorweave-layers:Transpose.v1", {"perm": (2, 0, 1)}, inputs=[(None, 2, 3)]),
    Case("tensorweave-layers:Transpose.v1", {"perm": (1, 0)}, inputs=[(None, 4)]),
    Case("Flatten.v1", {}, inputs=[(None, 3, 2)]),
    Case("RepeatVector.v1", {"n": 3}, inputs=[(None, 4)]),
    Case("UpSampling1D.v1", {"size": 2, "interpolation": "bilinear"}, inputs=[(None, None, 2)]),
    Case("UpSampling2D.v1", {"size": (2, 1)}, inputs=[(None, 3, 3, 2)]),
    Case("UpSampling3D.v1", {"size": 2}, inputs=[(None, 2, 2, 2, 1)]),
    Case("Pad.v1", {"padding": (1, (0, 2)), "mode": "symmetric"}, inputs=[(None, 3, 4)]),
    Case("ZeroPadding1D.v1", {"padding": 2}, inputs=[(None, None, 3)]),
    Case("ZeroPadding2D.v1", {"padding": ((1, 0), 1)}, inputs=[(None, 3, 3, 2)]),
    Case("ZeroPadding3D.v1", {"padding": 1}, inputs=[(None, 2, 2, 2, 1)]),
    Case("Cropping1D.v1", {"cropping": (1, 0)}, inputs=[(None, None, 2)]),
    Case("Cropping2D.v1", {"cropping": 1}, inputs=[(None, 4, 4, 2)]),
    Case("Cropping3D.v1", {"cropping": (1, 0, 1)}, inputs=[(None, 3, 3, 3, 1)]),
    Case("DepthToSpace.v1", {"block_size": 2}, inputs=[(None, None, 3, 8)]),
]
