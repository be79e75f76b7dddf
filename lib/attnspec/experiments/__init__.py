"""Studies: measurements the chapters show, built on the samplers and laws."""
