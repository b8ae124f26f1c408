"""`python -m kafana.cli ...`: the `kafana` command, for when its script is not on the PATH."""

from kafana.cli import main

main(prog_name="kafana")
