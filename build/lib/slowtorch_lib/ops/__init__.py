"""The operations, grouped by kind. Each is a Function with forward and backward."""
