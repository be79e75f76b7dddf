"""Readers of pretrained models (not samplers, not studies): :mod:`.minilm`."""
