"""Readers of pretrained models (not samplers, not studies): :mod:`.minilm`, and the per-user
cache their weights are fetched into, :mod:`.cache`."""
