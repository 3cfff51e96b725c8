"""Spec modules (one per op family), the zoo, and the conformance tests."""
