"""Recorded calls: the calls a program makes to a namespace's ops, written
down without tensor data, and the Specs and Cases made from them, so a
whole namespace is checked without a hand-written spec per op."""
