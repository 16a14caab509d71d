"""The agreement harness: grades every operator against upstream torch 2.13.0 with upstream's own
OpInfo database (issue 3; the rule is docs/AGREEMENT_RULES.md, the result docs/AGREEMENT.md).

draw.py runs under upstream's interpreter and records OpInfo samples, every spelling's outcome
and the float64 reruns as exact bytes; replay.py runs under ours, one case at a time in a worker
that may die; judge.py (NumPy only) compares; report.py writes docs/AGREEMENT.md; __main__.py
runs the three steps. codec.py is shared by both interpreters and uses only torch calls our core
has. Nothing in this package imports torch at module level except the two process entry points.
"""
