"""The parameters each chapter accepts, with ranges and help (checked by attnspec.parameters).

One entry per notebook in ``chapters/``; ``tests/test_chapters.py`` fails when an entry and the
notebook's ``parameters`` cell disagree. ``quick`` holds the small sizes the test suite reruns
each chapter with (through papermill), so every chapter is exercised off its defaults too.
"""

from attnspec.parameters import Bool, ChapterSpec, Choice, Float, FloatList, Int, IntList

SEED = Int(0, 2**32 - 1, help="seed of numpy.random.default_rng; same seed, same figures")

CHAPTERS = {
    "01_attention_as_a_random_matrix": ChapterSpec(
        parameters={
            "ell": Int(2, 6000, help="tokens ℓ (rows of the attention matrix)"),
            "d_qk": Int(1, 20000, help="query/key width d_qk"),
            "beta": Float(0, 5, min_open=True, help="inverse temperature β"),
            "draws": Int(1, 100, help="independent attention matrices pooled in the figure"),
            "seed": SEED,
        },
        quick={"ell": 120, "d_qk": 120, "draws": 1},
    ),
    # --- 02_background (owner: part I chapters) ---
    "02_background": ChapterSpec(
        parameters={
            "n": Int(2, 6000, help="matrix size of the illustrations"),
            "beta": Float(0, 5, min_open=True, help="inverse temperature β"),
            "seed": SEED,
        },
        quick={"n": 150},
    ),
    # --- 03_single_head_theorem ---
    "03_single_head_theorem": ChapterSpec(
        parameters={
            "ell": Int(2, 6000, help="tokens ℓ"),
            "betas": FloatList(0, 5, min_open=True, help="inverse temperatures β compared"),
            "cs": FloatList(0, 16, min_open=True, help="ratios c = ℓ/d_qk compared"),
            "draws": Int(1, 100, help="draws pooled per histogram"),
            "seed": SEED,
        },
        quick={"ell": 150, "draws": 1},
    ),
    # --- 04_stepwise_equivalence ---
    "04_stepwise_equivalence": ChapterSpec(
        parameters={
            "ell": Int(2, 6000, help="tokens ℓ = d = d_qk"),
            "beta": Float(0, 5, min_open=True, help="inverse temperature β"),
            "draws": Int(1, 100, help="independent draws pooled"),
            "drop_top": Int(0, 50, help="top singular values removed before comparing bulks"),
            "degree": Int(1, 12, help="Hermite truncation degree Q of Y^Q"),
            "seed": SEED,
        },
        quick={"ell": 150, "draws": 1},
    ),
    # --- 05_outliers_and_threshold ---
    "05_outliers_and_threshold": ChapterSpec(
        parameters={
            "ell": Int(2, 6000, help="tokens ℓ for the outlier study"),
            "beta": Float(0, 5, min_open=True, help="inverse temperature β of the outlier study"),
            "ells": IntList(2, 6000, help="sizes ℓ of the convergence sweep"),
            "betas": FloatList(0, 5, min_open=True, help="β values of the sweeps"),
            "draws": Int(1, 100, help="draws per sweep point"),
            "seed": SEED,
        },
        quick={"ell": 150, "ells": [60, 120], "betas": [0.5, 1.0], "draws": 1},
    ),
    # --- 06_multihead_equivalence ---
    "06_multihead_equivalence": ChapterSpec(
        parameters={
            "ell": Int(2, 4000, help="tokens ℓ"),
            "d": Int(1, 8000, help="embedding width d"),
            "heads_list": IntList(1, 64, help="head counts H compared"),
            "beta": Float(0, 5, min_open=True, help="inverse temperature β"),
            "draws": Int(1, 100, help="draws pooled per histogram"),
            "seed": SEED,
        },
        quick={"ell": 64, "d": 128, "heads_list": [1, 2], "draws": 1},
    ),
    # --- 07_key_dependent_projections ---
    "07_key_dependent_projections": ChapterSpec(
        parameters={
            "ell": Int(2, 4000, help="tokens ℓ"),
            "d": Int(1, 8000, help="embedding width d"),
            "heads": Int(1, 64, help="heads H"),
            "groups": Int(1, 64, help="key/value groups of grouped-query attention"),
            "beta": Float(0, 5, min_open=True, help="inverse temperature β"),
            "draws": Int(1, 100, help="draws pooled per histogram"),
            "seed": SEED,
        },
        quick={"ell": 64, "d": 128, "draws": 1},
    ),
}
