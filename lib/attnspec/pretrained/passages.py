"""The passages chapter 9 feeds to all-MiniLM-L6-v2 (files in ``texts/``, sources in SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from .._validation import check_int

__all__ = ["minilm_passages", "PASSAGE_NAMES"]

_FOLDER = Path(__file__).resolve().parent / "texts"

#: The shipped passages, shortest first, two abstracts, two public-domain novel openings and
#: the book's own introduction (ℓ from 112 to 470 tokens with [CLS] and [SEP]).
#: abstract2: paper 2's abstract; austen: Pride and Prejudice; abstract1: paper 1's abstract;
#: dickens: A Tale of Two Cities; book: this book's introduction.
PASSAGE_NAMES = ("abstract2", "austen", "abstract1", "dickens", "book")


def minilm_passages(max_words=None):
    """The passages as a dict name -> text, optionally cut to their first ``max_words`` words.

    Parameters
    ----------
    max_words : int, optional
        Keep only the first max_words ≥ 1 whitespace-separated words of each passage (short
        passages for quick reruns); default the whole passage.

    Returns
    -------
    dict
        :data:`PASSAGE_NAMES` -> str, in that order.
    """
    if max_words is not None:
        max_words = check_int("max_words", max_words, min=1)
    texts = {}
    for name in PASSAGE_NAMES:
        words = (_FOLDER / f"{name}.txt").read_text(encoding="utf-8").split()
        texts[name] = " ".join(words if max_words is None else words[:max_words])
    return texts
