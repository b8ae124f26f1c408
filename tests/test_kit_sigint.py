"""`kit.default_sigint`: a child a test will Ctrl-C starts with SIGINT at its default, even
where the test process ignores it (as pytest-xdist workers do)."""

from __future__ import annotations

import signal
import subprocess
import sys

from kit import default_sigint

SHOW = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"


def test_a_child_hears_ctrl_c_even_where_the_tests_ignore_it() -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        plain = subprocess.run([sys.executable, "-c", SHOW], capture_output=True, text=True)
        restored = subprocess.run(
            [sys.executable, "-c", SHOW],
            capture_output=True,
            text=True,
            preexec_fn=default_sigint,
        )
    finally:
        signal.signal(signal.SIGINT, before)
    assert plain.stdout.strip() == "False"  # ignored: what the Ctrl-C tests' children inherited
    assert restored.stdout.strip() == "True"
