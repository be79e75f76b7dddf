"""Book tooling: chapter parameters (spec types and the per-chapter registry), papermill
reruns and the ``attnspec`` command line."""
