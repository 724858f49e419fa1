"""The IR: its nodes and text form, the op table, the builder, verifier, interpreter, simplifications and analyses."""
