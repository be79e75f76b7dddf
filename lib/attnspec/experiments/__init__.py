"""Studies behind the chapters: sweeps, tables and per-draw measurements built on the laws and samplers."""
