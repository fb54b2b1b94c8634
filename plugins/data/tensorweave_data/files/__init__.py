"""Datasets read from your own files, streamed through ``tf.data`` (never whole in memory).

``image_folder.v1`` (``files.image_folder``): class subfolders of images, as Keras's
``image_dataset_from_directory``, or a ``path,label`` manifest (``files.path_labels``);
``table.v1``, ``text_folder.v1``, ``text_lines.v1``, ``tfrecord.v1``; ``hf_dataset.v1``: a
saved Hugging Face dataset (``files.hf_format``). Their paths may be fsspec URLs
(``files.paths``), except ``hf_dataset.v1``'s: it never downloads. Each returns
``DataSplits`` whose ``train``/``valid`` are ``files.streaming.Stream`` objects: mappings
``{field: Column}`` the training loop reads batch by batch (see ``docs/data.md``). Their
shared machinery: ``files.errors`` (what goes wrong), ``files.sources`` (files into
tf.data), ``files.position`` (epoch order and resume position), ``files.arrow``
(Parquet/Arrow files through pyarrow).
"""
