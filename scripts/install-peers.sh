#!/usr/bin/env bash
# Installs the optional peers the bench compares against when present: wrk (a second load generator).
# The bench itself installs nothing; run this once (as root) to add the peer rows.
set -euo pipefail
apt-get update -qq
apt-get install -y -qq wrk
