#!/usr/bin/env bash
# Make a Docker daemon answer on this machine (idempotent): install docker.io, docker-compose
# (tests/docker brings the server images up with docker/compose.yaml), debootstrap and
# bubblewrap with apt-get when missing, start dockerd in the background when `docker info`
# fails, wait up to 60 s for it. Prints one line. Exit 0 when a daemon answers; otherwise the
# line says "no Docker daemon could be started: <why>" and the exit code is 3, so callers can
# fall back (the Docker tests then skip and say so).
set -uo pipefail

fail() { echo "no Docker daemon could be started: $*"; exit 3; }

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        command -v dockerd >/dev/null 2>&1 || docker info >/dev/null 2>&1 \
            || fail "dockerd is not installed and this is not root"
    elif command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/agentgym-apt.log 2>&1; then
            apt-get update -qq >>/tmp/agentgym-apt.log 2>&1 || true
            apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/agentgym-apt.log 2>&1 \
                || command -v dockerd >/dev/null 2>&1 \
                || fail "apt-get install ${missing[*]} failed (see /tmp/agentgym-apt.log)"
        fi
    else
        command -v dockerd >/dev/null 2>&1 || fail "dockerd is missing and there is no apt-get"
    fi
fi

if docker info >/dev/null 2>&1; then
    echo "docker: daemon already running ($(docker info --format '{{.ServerVersion}}' 2>/dev/null))"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    fail "dockerd needs root and this is uid $(id -u) (start it with sudo, or join the docker group)"
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
    # setsid + nohup: the daemon must outlive this script and the CI step that called it.
    setsid nohup dockerd >/tmp/agentgym-dockerd.log 2>&1 < /dev/null &
fi
for _ in $(seq 1 60); do
    if docker info >/dev/null 2>&1; then
        echo "docker: started dockerd ($(docker info --format '{{.ServerVersion}}' 2>/dev/null))"
        exit 0
    fi
    if ! pgrep -x dockerd >/dev/null 2>&1; then
        why=$(grep -iE 'error|fail' /tmp/agentgym-dockerd.log | tail -1 | cut -c1-200)
        fail "dockerd exited: ${why:-see /tmp/agentgym-dockerd.log}"
    fi
    sleep 1
done
fail "dockerd did not answer within 60 s (see /tmp/agentgym-dockerd.log)"
