"""Studies: per-draw functions for sweeps, comparisons and the tables the chapters print.

``stepwise`` (the stepwise chain's bulks), ``coupling`` (softmax vs linear models sharing
weights), ``outliers`` (outliers and distances to the limit laws), ``multihead`` (multi-head
studies), ``thresholds`` (the registry of scales of the threshold for linearisation),
``outlier_onset`` (the finite-ℓ outlier onset), ``operator_norm`` (the top singular value of A
and the norm of the linear model), ``row_sums`` (row-sum fluctuations: the formula of A4 §5 and
their measurement), ``prior_model`` (the i.i.d.-score model against softmax),
``realistic`` (the theorem's assumptions relaxed one at a time), ``tables`` (their rows and
text formats) and ``trained_heads`` (chapter 9's measurements of a pretrained model). A new
study gets a new module here.
"""
