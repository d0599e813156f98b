"""Shared plumbing of the compiled solvers: the clock, the RNG, linear algebra, scratch
buffers, named settings, the one-call path for a single pose goal, and `Family`."""
