"""Local searches from one start with random restarts: Levenberg–Marquardt, KDL-style
Newton–Raphson, the pseudo-inverse family and gradient descent."""
