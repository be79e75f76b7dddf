"""The free-probability core: series, transforms, roots, the η-ladder, subordination."""
