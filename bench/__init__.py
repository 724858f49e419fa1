"""The benchmark suite of issue 7: five workloads (../shared/bench/WORKLOADS.md), each in loop
style (pyad, Numba, CPython) and array style (JAX, autograd, PyTorch), plus hand-written C for
W1, W3 and W4. Run everything with `python -m bench` (see bench/__main__.py)."""
