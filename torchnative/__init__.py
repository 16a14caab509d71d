"""torchnative's Python side: the demo, the agreement harness and the worker protocol.

This package is imported by the parent processes (demo, tests, bench, tools) under either
interpreter, so importing it never imports torch; only the worker scripts do, in their own process.
"""
