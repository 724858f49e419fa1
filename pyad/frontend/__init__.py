"""Python source -> typed SSA IR."""
