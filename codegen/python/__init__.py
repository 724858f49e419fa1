"""The CPython side of compiled code: native wrappers and the cffi fallback."""
