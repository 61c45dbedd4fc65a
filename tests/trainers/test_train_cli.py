"""`agentgym train`: bad input refused before any work (one line, exit 2), and a real run."""

import gymnasium as gym
import pytest

pytest.importorskip("torch")

from agentgym.cli import main
from agentgym.trainers.metrics import read_metrics

TTT = "agentgym/TicTacToe-v0"


class NoOracleEnv(gym.Env):
    """A text env with no score_actions: VPR cannot train on it."""

    observation_space = gym.spaces.Text(16)
    action_space = gym.spaces.Text(16)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return "start", {}

    def step(self, action):
        return "end", 0.0, True, False, {}


if "test/NoOracle-v0" not in gym.registry:
    gym.register("test/NoOracle-v0", entry_point=NoOracleEnv)


@pytest.fixture
def no_model_load(monkeypatch):
    """Fail the test if a model were loaded: refusals must come before any work."""
    import agentgym.llm.models as models

    def refuse(*args, **kwargs):
        raise AssertionError("a model was loaded before the input was checked")

    monkeypatch.setattr(models, "load_model", refuse)


def refused(capsys, tmp_path, *argv):
    out = tmp_path / "run"
    code = main(["train", *argv, "--out-dir", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and err.startswith("agentgym train: error:"), err
    assert not out.exists()  # nothing was written
    return err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--algo", "grpo", "--env", TTT, "--bogus-key", "1"], "unknown config key 'bogus_key'"),
        (["--algo", "grpo", "--env", TTT, "--set", "k=4"], "unknown config key 'k' for grpo"),
        (["--algo", "grpo", "--env", TTT, "--model", "/no/such/model"],
         "model path '/no/such/model' does not exist"),
        (["--algo", "grpo", "--env", "agentgym/Nope-v0"], "env id 'agentgym/Nope-v0' is not "
         "registered"),
        (["--algo", "grpo", "--env", TTT, "--group-size", "1"], "group_size must be >= 2 for GRPO"),
        (["--algo", "vpr", "--env", TTT, "--k", "1"], "k must be >= 2 for VPR"),
        (["--algo", "vpr", "--env", "test/NoOracle-v0"], "has no score_actions()"),
        (["--algo", "grpo", "--env", TTT, "-k", "bogus=1"], "bogus"),
        (["--algo", "grpo", "--env", "agentgym/Sokoban-v0", "-k", "size=99"],
         "size must be in [5, 10], got 99"),
        (["--algo", "sft", "--env", TTT, "--agent", "nobody"], "unknown agent 'nobody'"),
        (["--algo", "sft", "--env", "test/NoOracle-v0"], "has no oracle_actions()"),
        (["--algo", "grpo", "--env", TTT, "--resume"], "--resume: no checkpoint"),
        (["--algo", "grpo", "--env", TTT, "--lr", "fast"],
         "lr must be a finite number > 0, got 'fast'"),
        (["--algo", "grpo", "--env", TTT, "--device", "gpu0"], "is not a torch device"),
    ],
)
def test_bad_input_is_refused_before_any_work(argv, message, capsys, tmp_path, no_model_load):
    assert message in refused(capsys, tmp_path, *argv)


def test_unknown_key_in_a_config_file(capsys, tmp_path, no_model_load):
    cfg = tmp_path / "c.toml"
    cfg.write_text("group_size = 4\ngroupsize = 8\n")
    err = refused(capsys, tmp_path, "--algo", "grpo", "--env", TTT, "--config", str(cfg))
    assert "unknown config key 'groupsize' for grpo" in err


def test_other_commands_still_refuse_unknown_arguments(capsys):
    with pytest.raises(SystemExit) as info:
        main(["list", "--bogus"])
    assert info.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_a_two_update_grpo_run_on_tictactoe_with_the_tiny_model(capsys, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("groups = 2\nmax_turns = 2\n")
    out = tmp_path / "run"
    code = main(["train", "--algo", "grpo", "--env", TTT, "--model", "tiny-random",
                 "--config", str(cfg), "--updates", "2", "--set", "group_size=3",
                 "--max-new-tokens=8", "--progress", "false", "--out-dir", str(out)])
    assert code == 0, capsys.readouterr().err
    rows = read_metrics(out / "metrics.jsonl")
    assert [r["update"] for r in rows] == [1, 2]
    assert all(r["episodes"] == 6 for r in rows)  # 2 groups (TOML) x 3 (--set)
    for key in ("reward_mean", "success_rate", "valid_action_rate", "zero_spread_fraction",
                "tokens_per_s", "env_time_share"):
        assert key in rows[0], key
    assert (out / "curves.png").stat().st_size > 1000
    assert (out / "checkpoint" / "state.pt").is_file() and (out / "model").is_dir()
    assert "grpo done, 2 rows" in capsys.readouterr().out
