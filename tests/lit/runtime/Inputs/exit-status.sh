#!/usr/bin/env bash
# Runs its arguments as a command, then prints `exit status N` on stdout, so a
# lit test can FileCheck an exact exit status (77 = SKIP) that `not` cannot.
"$@"
echo "exit status $?"
