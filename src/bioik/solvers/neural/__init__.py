"""BioIK 2's neural-network solvers [R 3.6]: `neural` and `neural2` (`search`), their
networks (`network`: plain arrays, compiled inference) and their training (`train`,
which needs the optional extra `bioik[neural]`)."""
