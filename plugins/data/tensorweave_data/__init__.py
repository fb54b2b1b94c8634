"""tensorweave-data: processors, parallel pipelines and download-free datasets.

Use them by registered name through the core registries: ``tw.processors["normalize.v1"]``,
``tw.registry("pipelines")["Pipeline.v1"]``, ``tw.registry("datasets")["digits.v1"]``. This
pack declares those three kinds (``tensorweave_data.kinds``). Importing the package is
cheap: each name's module is imported when the name is first used.

>>> import tensorweave as tw
>>> import tensorweave_data as twd
>>> twd.Pipeline is tw.registry("pipelines")["Pipeline.v1"]
True
"""

from __future__ import annotations

import tensorweave as tw

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "Pipeline": "pipeline",
    "ProcessingError": "pipeline",
    "stack": "pipeline",
    "DataSplits": "datasets",
    "digits": "datasets",
    "stdlib_chars": "datasets",
    "corpus": "datasets",
    "arrays": "array_dataset",
    "read_arrays": "array_dataset",
    "processors": "processors",
    "kinds": "kinds",
    "normalize": "processors",
    "one_hot": "processors",
    "cast": "processors",
    "reshape": "processors",
    "tokenize_chars": "processors",
    "detokenize_chars": "processors",
    "window": "processors",
    "shift_targets": "processors",
    "scale": "processors",
    "argmax": "processors",
    "labels": "processors",
    "shuffle": "processors",
    "take": "processors",
    "shapes_segmentation": "shapes",
    "draw_shapes": "shapes",
    "synthetic_translation": "translation_tasks",
    "files": "files",
    "graph_forms": "graph_forms",
    "graph_form": "graph_forms",
    "with_steps": "graph_forms",
    "StepsError": "graph_forms",
    "resize": "processors",
    "random_crop": "processors",
    "random_flip": "processors",
    "random_brightness": "processors",
    "random_contrast": "processors",
    "BadFileError": "reading",
    "read_npy": "array_files",
    "read_npz": "array_files",
    "read_json": "reading",
    "read_text": "reading",
    "read_csv": "reading",
    "read_input": "array_files",
    "INPUT_FORMATS": "array_files",
    "IMAGE_SUFFIXES": "images",
    "image_files": "images",
    "read_image": "images",
    "image_folder": "files.image_folder",
    "table": "files.table",
    "text_folder": "files.text",
    "text_lines": "files.text",
    "tfrecord": "files.tfrecord",
    "hf_dataset": "files.hf_dataset",
    "Stream": "files.streaming",
    "FileDataError": "files.errors",
    "record_data_manifest": "verify",
    "warn_if_data_changed": "verify",
    "ChangedDataWarning": "verify",
}

__all__ = [*_EXPORTS, "__version__"]


__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
