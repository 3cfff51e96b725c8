"""The suite's own tests.

Under the dev profile they draw derandomized: a run of them is the same run
on any machine, so a random draw that happens on a new compiler fault does
not turn the suite's own CI red by chance (the catalog's searches find such
faults, and the programs check reports them). Another profile, chosen with
--hypothesis-profile, is left as it is.
"""

from hypothesis import settings

if settings.get_current_profile_name() == "dev":
    settings.register_profile("dev", settings.get_profile("dev"), derandomize=True)
    settings.load_profile("dev")
