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
