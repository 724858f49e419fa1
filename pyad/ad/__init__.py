"""Reverse-mode AD: a primal Func to a forward Func and a backward (adjoint) Func.

    fwd(params)          -> (results..., saved...)
    bwd(saved..., cts...) -> (grad of each differentiated param...)

The package, in the order a gradient is made (gradient.py calls them):

- activity.py: which values depend on a differentiated parameter (only those are reversed);
- shadow.py:   every active float array gets a shadow array holding its adjoint;
- reverser.py: the `Reverser` walks the Wengert list backwards, applies each op's adjoint
  rule from the op table, and adds up the contributions to a value used several times;
  branches are reversed as branches, loops by one of two strategies:
- plan.py:     for every loop, one printable plan of what its reverse re-runs (refill.py),
  recomputes, re-creates, rebuilds from the trip number, or tapes;
- taped.py:    the reverse loop that follows a plan (pushes in the forward loop, pops in the
  reverse loop); fused.py: accumulating loops reversed inside their forward sweep;
- checkpoint.py: under a tape budget, a taped loop keeps checkpoints of its carried values
  and re-runs segments of trips in the reverse sweep;
- close.py:    the backward function reads what it needs of the forward one (constants
  re-created, values inside branches exported, the rest saved).
"""
from .checkpoint import DEFAULT_MAX_TAPE_BYTES, Budget, budget
from .gradient import Gradient, callee_gradient, differentiate, fused_parts

__all__ = ["DEFAULT_MAX_TAPE_BYTES", "Budget", "budget", "Gradient", "callee_gradient",
           "differentiate", "fused_parts"]
