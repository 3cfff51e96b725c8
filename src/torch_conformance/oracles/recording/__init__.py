"""Recorded calls: the calls a program makes to a namespace's ops, written
down without tensor data, and the Specs and Cases made from them, so a
whole namespace is checked without a hand-written spec per op.

``recorder`` (the dispatch mode that records), ``calls`` (what a call
kept), ``relations`` (the ties between arguments that every call shows),
``cases`` (Cases from the calls and around them) and ``specs`` (a spec
per recorded op).
"""
