"""Searches built on scipy's optimizers: RelaxedIK-style SLSQP on groove losses, scipy's
minimizers on the IK cost, the TRAC-IK-style race, and BioIK 2 with L-BFGS-B memetics."""
