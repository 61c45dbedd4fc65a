"""benchmarks/gpu/bench.py (what scripts/gpu_bench.sh runs) works end to end, here on the CPU."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_bench():
    spec = importlib.util.spec_from_file_location("gpu_bench", ROOT / "benchmarks/gpu/bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# slow: the whole benchmark end to end (~9 s of CPU)
@pytest.mark.slow
def test_cpu_smoke_run_reports_every_figure(tmp_path, capsys):
    bench = load_bench()
    rc = bench.main(["--device", "cpu", "--dtype", "", "--models", "tiny-random",
                     "--updates", "2", "--groups", "2", "--group-size", "2",
                     "--max-new-tokens", "4", "--out", str(tmp_path)])
    assert rc == 0
    (result,) = json.loads((tmp_path / "gpu_bench.json").read_text())
    assert result["model"] == "tiny-random" and result["updates"] == 2
    assert result["tokens_per_s"] > 0
    assert result["update_s"] is not None and result["update_s"] > 0
    assert 0 <= result["env_time_share"] < 1
    assert "tiny-random" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--models", "gpt-5"], "unknown model gpt-5"),
    (["--device", "cpu", "--updates", "1"], "--updates must be >= 2"),
])
def test_bad_input_is_one_line(argv, message, capsys):
    assert load_bench().main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and "\n" not in err


def test_the_script_runs_offline_with_what_the_machine_has():
    script = (ROOT / "scripts/gpu_bench.sh").read_text()
    commands = [line for line in script.splitlines() if not line.lstrip().startswith("#")]
    # Nothing is fetched (a GPU box may have no network): the one install is of carried
    # wheels, offline ...
    installs = [line for line in commands if "pip install" in line or "setup.sh" in line]
    assert installs and all("--no-index" in line and ".whl/" in line for line in installs)
    # ... it picks a Python that has the stack, and stays inside the 8-minute budget.
    assert "import torch, transformers, peft" in script and "python3" in script
    assert "timeout 470" in script


def test_the_script_refuses_in_one_line_without_a_usable_python(tmp_path):
    import os
    import subprocess

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:/usr/bin:/bin", "PYTHON": ""}
    # A copy of the script in a tree without .venv, and no python3 with torch on PATH.
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts/gpu_bench.sh").write_text((ROOT / "scripts/gpu_bench.sh").read_text())
    (tmp_path / "python3").symlink_to(fake)
    done = subprocess.run(["bash", str(tmp_path / "scripts/gpu_bench.sh")], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no Python with torch" in done.stderr


def _fake_python(tmp_path: Path) -> Path:
    """A "python" with torch, transformers and peft but none of agentgym's other
    dependencies (a GPU image): it logs each call and answers the script's probes."""
    log = tmp_path / "calls.log"
    fake = tmp_path / "python"
    fake.write_text(f"""#!/usr/bin/env bash
echo "$*" >> {log}
case "$*" in
  *"import torch, transformers, peft"*) exit 0 ;;
  *"import gymnasium"*) exit 1 ;;
  *"-m pip install"*) exit 0 ;;
  *) echo "ran: $*"; exit 0 ;;
esac
""")
    fake.chmod(0o755)
    return fake


def _checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "gpu_bench.sh").write_text((ROOT / "scripts/gpu_bench.sh").read_text())
    return root


def test_without_the_dependencies_or_wheels_the_script_says_what_to_run(tmp_path):
    import subprocess

    root, fake = _checkout(tmp_path), _fake_python(tmp_path)
    run = subprocess.run(["bash", "scripts/gpu_bench.sh"], cwd=root, capture_output=True,
                         text=True, env={"PATH": "/usr/bin:/bin", "PYTHON": str(fake)})
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0 and "scripts/gpu_wheels.sh" in run.stderr


def test_with_wheels_the_script_installs_them_offline_and_runs(tmp_path):
    import subprocess

    root, fake = _checkout(tmp_path), _fake_python(tmp_path)
    (root / ".whl").mkdir()
    (root / ".whl" / "gymnasium-1.0-py3-none-any.whl").write_bytes(b"")
    run = subprocess.run(["bash", "scripts/gpu_bench.sh", "--models", "smollm2"], cwd=root,
                         capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "PYTHON": str(fake)})
    assert run.returncode == 0, run.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    install = next(c for c in calls if "-m pip install" in c)
    assert "--no-index" in install and ".whl/gymnasium-1.0-py3-none-any.whl" in install
    assert calls[-1].endswith("benchmarks/gpu/bench.py --device cuda --dtype bfloat16 "
                              "--models smollm2")
