"""Generated programs: the model code around an op, drawn by Hypothesis.

``program`` holds the data (Steps, rendered as the Python that runs),
``strategy`` draws legal programs around a spec's Case, ``legality`` says
what eager leaves undefined and what the compiler refuses by design, and
``ops`` the second mutating op a program may call.
"""
