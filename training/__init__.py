"""training: self-play data, value-net training and safe weight export for the Amazons CNN."""
