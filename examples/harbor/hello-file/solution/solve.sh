#!/bin/bash
# The reference solution: the oracle runs it in the agent's working directory.
set -euo pipefail
printf 'Hello, Harbor!\n' > greeting.txt
printf '%s\n' "$(head -n1 greeting.txt | tr -d '\n' | wc -c)" > count.txt
