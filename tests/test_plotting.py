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
