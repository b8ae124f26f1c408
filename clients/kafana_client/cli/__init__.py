"""The terminal commands: `kafana play`, `kafana watch`, `kafana replay`."""
