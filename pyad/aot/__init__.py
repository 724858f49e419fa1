"""`pyad compile`: the command line and Numba-style signatures."""
