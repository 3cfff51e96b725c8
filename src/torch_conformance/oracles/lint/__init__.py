"""The registry lint: every op of a namespace checked for what FakeTensor,
torch.compile and Inductor need of it, without a spec each.

``fallbacks`` (a namespace's ops and how Inductor lowers each) and ``lint``
(the lint itself, whose results are Findings too).
"""
