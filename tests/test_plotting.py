"""Tests of attnspec.plotting: the figure helpers, smoke-tested with the Agg backend."""

import numpy as np
import attnspec


def test_histogram_over_sorted_builds_every_panel():
    """Two rows of axes per row of panels; common scales; unused panels hidden."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    spectra = {name: [rng.exponential(size=40) for _ in range(2)] for name in "abcd"}
    labels = {name: name.upper() for name in spectra}
    law = attnspec.MarchenkoPastur(1.0, 1.0)
    fig = attnspec.plotting.histogram_over_sorted(spectra, labels, law=law,
                                                  reference={"b": "a"}, offset=2,
                                                  law_label="law", reference_label="prev")
    axes = fig.axes
    assert len(axes) == 4 * 3                       # 2 rows of panels × (hist + sorted) × 3
    assert sum(ax.get_visible() for ax in axes) == 8
    assert len({ax.get_ylim() for ax in axes[:3]}) == 1   # histograms share the scale
    sorted_b = axes[4]
    assert sorted_b.lines[0].get_xdata()[0] == 3          # ranks start after the offset
    assert len(sorted_b.lines) == 3                       # simulated, reference, quantiles
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"simulated", "law", "prev"}
    plt.close(fig)


def test_heat_map_sorts_cells_and_annotates():
    """Cells follow sorted grids; one number per cell; a colour bar when labelled."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    values = np.array([[0.1, 0.2, 0.3], [0.01, 0.02, 0.03]])
    mesh = attnspec.plotting.heat_map(ax, [500, 125, 250], [2.0, 1.0], values,
                                      colorbar_label="KS")
    grid = mesh.get_array().reshape(2, 3)
    np.testing.assert_allclose(grid, [[0.02, 0.03, 0.01], [0.2, 0.3, 0.1]])
    assert len(ax.texts) == 6 and ax.get_xscale() == "log" and len(fig.axes) == 2
    plt.close(fig)


def _policy_figures():
    """One figure from every figure-making helper of attnspec.plotting, small synthetic data."""
    import matplotlib.pyplot as plt

    plotting = attnspec.plotting
    rng = np.random.default_rng(1)
    law = attnspec.MarchenkoPastur(1.0, 1.0)
    yield "histogram_over_sorted", plotting.histogram_over_sorted(
        {k: [rng.exponential(size=30)] for k in "abc"}, {k: k for k in "abc"}, law=law,
        law_label="law")
    yield "phase_diagram", plotting.phase_diagram(
        [125, 250], [0.5, 1.0, 2.0], np.full((3, 2), 0.05), np.full((3, 2), 0.9),
        onsets={125: (1.2, np.nan), 250: (1.1, 2.0)})
    fig, (a, b) = plotting.subplots(1, 2)
    plotting.spectrum_histogram(a, rng.exponential(size=200), label="sample")
    plotting.law_curve(a, law, label="law")
    plotting.sorted_spectrum(b, rng.exponential(size=50), label="sorted")
    plotting.legend_below(fig)
    yield "spectrum_histogram, law_curve, sorted_spectrum", fig
    fig, ax = plotting.subplots()
    plotting.edge_approximations_plot(ax, [0.5, 1.0], (0.1, 2.0), points=10)
    plotting.legend_below(fig)
    yield "edge_approximations_plot", fig
    betas = rng.lognormal(size=(2, 3, 4))
    fig, (a, b) = plotting.subplots(1, 2)
    plotting.heads_on_phase_diagram(a, [50, 100], betas, random=([50, 100], [1.0, 1.0], "rnd"))
    plotting.beta_by_layer(b, betas, reference=1.0, reference_label="init")
    plotting.legend_below(fig)
    yield "heads_on_phase_diagram, beta_by_layer", fig
    fig, (a, b) = plotting.subplots(1, 2)
    plotting.ladder_strips(a, [{"rung 1": [0.1, 0.2], "trained, all": [0.5, np.nan]}],
                           labels=["to law"], floor=0.3, floor_label="floor")
    plotting.layer_profile(b, betas, label="median", color="C0")
    plotting.legend_below(fig)
    yield "ladder_strips, layer_profile", fig
    fig, (a, b) = plotting.subplots(1, 2)
    plotting.normalised_spectra(a, rng.exponential(size=100), rng.exponential(size=100),
                                law, 1.0)
    rows = [{"ell": e, "ks": {"x": 1 / e}} for e in (100, 200, 400)]
    plotting.ks_against_ell(b, rows, {"x": ("to law", "C1", "-")})
    plotting.legend_below(fig)
    yield "normalised_spectra, ks_against_ell", fig
    plt.close("all")


def test_every_plotting_helper_follows_the_figure_policy():
    """At the column width, every text of every helper's figure is at least MIN_FONT_PT
    points, no figure is wider than the column, and each figure-wide legend lies below all
    axes (outside the data)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plotting = attnspec.plotting
    with plt.rc_context(plotting.book_style()):
        for name, fig in _policy_figures():
            sizes = plotting.text_sizes(fig)
            assert sizes and min(sizes) >= plotting.MIN_FONT_PT, (name, min(sizes))
            assert fig.get_figwidth() <= plotting.COLUMN_WIDTH, name
            renderer = fig.canvas.get_renderer()
            for legend in fig.legends:
                top = legend.get_window_extent(renderer).y1
                bottoms = [ax.get_tightbbox(renderer).y0 for ax in fig.axes
                           if ax.get_visible()]
                assert top <= min(bottoms) + 1, name
            plt.close(fig)


def test_text_sizes_shrink_with_a_figure_wider_than_the_column():
    """A figure twice the column's width is shown at half size: its 10 pt text counts as 5."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2 * attnspec.plotting.COLUMN_WIDTH, 3))
    fig.text(0.5, 0.5, "label", fontsize=10)
    assert attnspec.plotting.text_sizes(fig) == [5.0]
    plt.close(fig)
