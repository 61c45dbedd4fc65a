#!/bin/bash
# Harbor's verifier entry point: the harness in the base image runs the pytest files beside
# this one and writes /logs/verifier/reward.txt (1 when all pass). agentgym runs them itself.
exec python3 -I -m agentgym_harness harbor "$(dirname "$(readlink -f "$0")")"
