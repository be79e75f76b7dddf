"""The prior (i.i.d.-score) model gives Marchenko–Pastur; softmax attention does not."""

import numpy as np
import pytest

from attnspec.experiments import prior_model


def test_iid_is_mp_and_softmax_is_not():
    spectra = prior_model.prior_model_spectra(500, 1.0, draws=1, seed=2)
    ks = prior_model.prior_model_distances(spectra, 1.0, drop_top=3)
    # oracle: the MP law itself; at ell = 500 the KS noise of one draw is ~0.02
    assert ks["iid", "mp"] < 0.03
    assert ks["softmax", "mp"] > 2 * ks["iid", "mp"]
    assert ks["softmax", "nu"] < ks["softmax", "mp"]


def test_seeded_and_shapes():
    a = prior_model.prior_model_spectra(40, 0.5, draws=2, seed=1)
    b = prior_model.prior_model_spectra(40, 0.5, draws=2, seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a["iid"] + a["softmax"],
                                                     b["iid"] + b["softmax"]))
    assert [v.size for v in a["iid"]] == [40, 40]


@pytest.mark.parametrize("kwargs, name", [(dict(ell=1, beta=1.0), "ell"),
                                          (dict(ell=10, beta=-1.0), "beta"),
                                          (dict(ell=10, beta=1.0, draws=0), "draws")])
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        prior_model.prior_model_spectra(**kwargs)
