"""What users call: `jit_grad`, gradients and transforms, checks, the cache, pickling."""
