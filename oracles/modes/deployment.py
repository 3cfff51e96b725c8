"""The ways a deployment Mode runs a program instead of torch.compile
(``Compiled.deploy``; ``oracles.modes.deployed_program`` runs them)."""

EXPORT = "export"  # exported with torch.export, the exported program run
AOTI = "aoti"  # that export compiled by AOTInductor, packaged, loaded and run
