"""Population-based searches: the original BioIK (HGSA) and BioIK 2's memetic evolution."""
