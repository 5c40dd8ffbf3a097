"""Tests of ldp_arrow: python -m unittest (from sdk/python)."""
