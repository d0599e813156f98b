"""Searches built on scipy's optimizers: RelaxedIK-style SLSQP on groove losses, scipy's
minimizers on the IK cost, the TRAC-IK-style race, BioIK 2 with L-BFGS-B memetics, and the
L-BFGS-B path for goals with Python callables."""
