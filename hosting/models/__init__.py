"""Where the pretrained page's checkpoints come from: the catalogue, a local folder, the Hub.

Plain Python (no NumPy, no app code): this package only finds and fetches folders
holding ``config.json``, ``model.safetensors`` (or an index and its shards) and
``tokenizer.json``; ``attention_core.pretrained`` reads them.

- :mod:`hosting.models.catalogue`: the pinned models a classroom server can hold.
- :mod:`hosting.models.settings`: which of them a server offers, its local folder, its size cap.
- :mod:`hosting.models.local`: the checkpoints in the local folder.
- :mod:`hosting.models.hub`: downloading a catalogue model from the Hugging Face Hub.
- :mod:`hosting.models.errors`: :class:`ModelSourceError`, whose message users read.
"""
