"""Studies that combine samplers and laws into the numbers and figures of the book."""
