#!/bin/bash
# The verifier: half the reward for each file that is right; Harbor reads /logs/verifier/reward.txt.
score=0
if [ "$(cat greeting.txt 2>/dev/null)" = "Hello, Harbor!" ]; then score=$((score + 1)); fi
if [ "$(tr -d '[:space:]' < count.txt 2>/dev/null)" = "14" ]; then score=$((score + 1)); fi
mkdir -p /logs/verifier
case "$score" in
  2) echo 1 > /logs/verifier/reward.txt ;;
  1) echo 0.5 > /logs/verifier/reward.txt ;;
  *) echo 0 > /logs/verifier/reward.txt ;;
esac
