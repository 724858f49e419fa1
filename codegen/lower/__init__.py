"""IR -> LLVM IR: kernels and the lowering of each kind of op."""
