"""An agent that attacks its sandbox: each attack is contained and the host is unaffected.

Every test gets a fresh container (from the module's warm pool) with small limits, so an
attack that wrecks its sandbox cannot spill into the next test.
"""

from __future__ import annotations

import os
import time

from sandbox_support import BASE, FAST, needs_docker

pytestmark = needs_docker


def test_network_is_off(box):
    probe = box.run(
        "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\"")
    assert probe.exit_code != 0 and "Network is unreachable" in probe.stderr
    assert box.run("ls /sys/class/net").stdout.split() == ["lo"]
    assert box.run("getent hosts deb.debian.org").exit_code != 0


def test_fork_bomb_is_contained(box):
    host_pids = len(os.listdir("/proc"))
    started = time.monotonic()
    bomb = box.run(":(){ :|:& };:", timeout_s=2.0)
    assert time.monotonic() - started < 10
    assert bomb.exit_code in (0, 124, 137) or bomb.stderr
    assert abs(len(os.listdir("/proc")) - host_pids) < 200  # the pids limit held
    after = box.run("echo alive; ps -e --no-headers | wc -l")
    assert after.stdout.startswith("alive\n")
    assert int(after.stdout.split()[1]) < 20  # the bomb died with its shell


def test_fork_bomb_that_escapes_its_group_hits_the_pids_limit(box):
    flood = box.run("for i in $(seq 200); do setsid sleep 60 & done 2>/dev/null; true",
                    timeout_s=3.0)
    assert "every process of this user was killed" in flood.stderr
    assert box.run("echo recovered; pgrep -c -f 'sleep 60'").stdout == "recovered\n0\n"


def test_memory_hog_is_killed(box):
    # Its own timeout: on a loaded machine, filling 256 MiB can take longer than FAST's 3 s.
    hog = box.run("python3 -c 'a = bytearray(1 << 31)'", timeout_s=30)
    assert hog.exit_code == 137 and "out-of-memory" in hog.stderr
    assert box.run("echo still here").stdout == "still here\n"


def test_filling_the_disk_hits_the_caps(box):
    fill = box.run("dd if=/dev/zero of=/app/big bs=1M count=100; df -m /app | tail -1")
    assert "No space left on device" in fill.stderr
    assert box.run("stat -c %s /app/big").stdout.strip() == str(FAST.workspace_mb << 20)
    tmp = box.run("dd if=/dev/zero of=/tmp/big bs=1M count=100")
    assert "No space left on device" in tmp.stderr
    home = box.run("dd if=/dev/zero of=$HOME/big bs=1M count=100")
    assert "No space left on device" in home.stderr
    assert box.run("rm /app/big /tmp/big ~/big && echo ok > /app/small && cat /app/small"
                   ).stdout == "ok\n"


def test_sleeping_past_the_timeout_kills_the_children(box):
    slow = box.run("sh -c 'sleep 100' & sleep 100 & wait", timeout_s=0.5)
    assert slow.timed_out and slow.exit_code == 124
    assert box.run("pgrep -c -f 'sleep 100'").stdout == "0\n"


def test_killing_pid_1_ends_the_sandbox_clearly(backend):
    box = backend.start(BASE, FAST, workdir="/app")
    try:
        assert box.run("kill -9 1; echo ignored").stdout == "ignored\n"  # init ignores KILL
        started = time.monotonic()
        ended = box.run("kill 1; sleep 5")
        assert time.monotonic() - started < 5
        assert ended.exit_code == 137 and "container stopped" in ended.stderr
        again = box.run("echo hello")
        assert again.exit_code == 137 and "start a new sandbox" in again.stderr
        assert box.run_as_root_script("true").exit_code == 137
    finally:
        box.close()


def test_killing_the_runner_restarts_it(box):
    box.run("cd /tmp")
    killed = box.run("kill -9 $PPID")
    assert killed.exit_code == 137 and "runner was killed" in killed.stderr
    assert box.run("pwd").stdout == "/tmp\n"
    stopped = box.run("sleep 77 & kill -STOP $PPID; sleep 78", timeout_s=0.5)
    assert stopped.timed_out and "stopped answering" in stopped.stderr
    assert box.run("echo back; pgrep -c -f 'sleep 7[78]'").stdout == "back\n0\n"


def test_poking_the_host_through_proc_sys_and_mounts_fails(box):
    for attack in ("echo b > /proc/sysrq-trigger",
                   "echo 1 > /proc/sys/kernel/sysrq",
                   "echo 1 > /sys/kernel/mm/ksm/run",
                   "mount -t tmpfs none /mnt",
                   "mount --bind /app /mnt",
                   "head -c1 /proc/kcore",
                   "unshare -r true",
                   "nsenter -t 1 -m true",
                   "su -c true root </dev/null",
                   "chroot / true"):
        result = box.run(attack)
        assert result.exit_code != 0, attack
    status = box.run("grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status").stdout
    assert "CapEff:\t0000000000000000" in status and "NoNewPrivs:\t1" in status
    root = box.run_as_root_script("grep CapEff /proc/self/status; mount -t tmpfs x /mnt")
    assert "0000000000000000" in root.stdout and root.exit_code != 0
    # The sysrq trigger cannot be read (Docker masks it), and the cgroup tree, though it may be
    # listed, takes no writes: no moving a process out of its limits, no new cgroup.
    assert box.run("cat /proc/sysrq-trigger").exit_code != 0
    for write in ("touch /sys/fs/cgroup/x", "mkdir /sys/fs/cgroup/escape",
                  "echo $$ > /sys/fs/cgroup/cgroup.procs"):
        assert box.run(write).exit_code != 0, write


def test_writing_outside_the_workspace_fails(box):
    for path in ("/etc/passwd", "/usr/bin/python3", "/newfile", "/var/x", "/root/x",
                 "/opt/x", "/bin/sh"):
        result = box.run(f"echo x > {path}")
        assert result.exit_code != 0, path
    assert box.run("echo x > /app/ok && echo x > /tmp/ok && echo x > ~/ok").exit_code == 0
    assert box.run_as_root_script("echo x > /etc/owned").exit_code != 0  # read-only root


def test_no_docker_socket_or_host_mounts(box):
    assert box.run("ls /var/run/docker.sock /run/docker.sock").exit_code != 0
    mounts = box.run("cat /proc/mounts").stdout
    assert "docker.sock" not in mounts
    assert " / overlay ro," in mounts
    host_paths = [line for line in mounts.splitlines() if line.split()[1] in ("/host", "/mnt")]
    assert host_paths == []
