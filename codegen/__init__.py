"""llvmlite backend of pyad (installed as the subpackage ``pyad.codegen``)."""
