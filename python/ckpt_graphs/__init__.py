"""Generators of synthetic training-step graphs in graph format v1.

These write the forward and backward graph of well-known architectures
directly in the ckpt op set (no PyTorch needed), at any size: they feed the
analysis tests (e.g. the saved-activation formula of Korthikanti et al.) and
the scaling benchmarks. Real models come from `ckpt_export`.
"""
