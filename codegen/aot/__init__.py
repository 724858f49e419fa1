"""The ahead-of-time C library: its C API, header, wrappers and build."""
