"""The benchmark suite (not tests): ``python -m bench.run`` (or ``make bench``).

See docs/benchmarks.md for what each benchmark measures and the figures measured.
"""
