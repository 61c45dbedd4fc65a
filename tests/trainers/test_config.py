"""Run configs: TOML, command-line overrides of every key, one-line refusals."""

import dataclasses
import json

import pytest

from agentgym.trainers.config import (
    CONFIGS,
    GRPOConfig,
    config_from_dict,
    load_config,
    parse_overrides,
)


def a_different_value(value):
    """A command-line string for a value unlike ``value`` of the same type."""
    if isinstance(value, bool):
        return str(not value).lower(), (not value)
    if isinstance(value, int):
        return str(value + 3), value + 3
    if isinstance(value, float):
        return str(value + 0.5), value + 0.5
    if isinstance(value, dict):
        return json.dumps({"size": 5}), {"size": 5}
    return None, None


CHOICES = {"advantage": "gigpo", "agg": "token-mean", "reward_mode": "outcome",
           "env": "agentgym/Sokoban-v0", "model": "smollm2", "out_dir": "runs/x",
           "device": "cuda", "dtype": "bfloat16", "system_prompt": "Play.", "agent": "random"}


@pytest.mark.parametrize("algo", sorted(CONFIGS))
def test_every_key_can_be_overridden_from_the_command_line(algo):
    defaults = CONFIGS[algo]()
    for f in dataclasses.fields(defaults):
        text, expected = a_different_value(getattr(defaults, f.name))
        if text is None:
            text = expected = CHOICES[f.name]
        if f.name in ("eps_low", "eps_high", "beta", "negative_weight"):
            text, expected = "0.1", 0.1
        if f.name == "gamma":
            text, expected = "0.5", 0.5
        cfg = load_config(algo, overrides=parse_overrides([f"--{f.name.replace('_', '-')}", text]))
        assert getattr(cfg, f.name) == expected, f.name
        cfg = load_config(algo, overrides=parse_overrides(["--set", f"{f.name}={text}"]))
        assert getattr(cfg, f.name) == expected, f.name


def test_toml_then_command_line(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('group_size = 6\nlr = 1e-4\nadvantage = "dr_grpo"\n[env_kwargs]\nsize = 4\n')
    cfg = load_config("grpo", path, {"lr": "3e-5"})
    assert (cfg.group_size, cfg.lr, cfg.advantage, cfg.env_kwargs) == (6, 3e-5, "dr_grpo",
                                                                       {"size": 4})
    assert isinstance(cfg, GRPOConfig) and cfg.updates == GRPOConfig().updates


@pytest.mark.parametrize(
    ("algo", "values", "message"),
    [
        ("grpo", {"bogus": 1}, "unknown config key 'bogus' for grpo"),
        ("vpr", {"group_size": 4}, "unknown config key 'group_size' for vpr"),
        ("grpo", {"group_size": 1}, "group_size must be >= 2 for GRPO"),
        ("vpr", {"k": 1}, "k must be >= 2 for VPR"),
        ("grpo", {"group_size": "four"}, "config key 'group_size' must be a int"),
        ("grpo", {"lr": True}, "config key 'lr' must be a float"),
        ("grpo", {"agg": "sum"}, "agg must be one of seq-mean, token-sum, token-mean"),
        ("grpo", {"advantage": "ppo"}, "advantage must be one of grpo, dr_grpo, gigpo"),
        ("sft", {"batch_size": 0}, "batch_size must be >= 1"),
        ("sft", {"history_turns": -2}, "history_turns must be >= -1"),
        ("grpo", {"trainable_layers": -1}, "trainable_layers must be >= 0"),
        ("vpr", {"warmup_steps": -2}, "warmup_steps must be >= 0"),
        ("vpr", {"negative_weight": 1.5}, "negative_weight must be in \\[0, 1\\], got 1.5"),
        ("grpo", {"negative_weight": -0.5}, "negative_weight must be in"),
        ("vpr", {"trainable_layers": 2, "lora_rank": 4}, "trainable_layers or lora_rank"),
        ("grpo", {"env_kwargs": "[1]"}, "config key 'env_kwargs' must be a dict"),
        ("ppo", {}, "unknown algo 'ppo'"),
    ],
)
def test_bad_values_are_refused_in_one_line(algo, values, message):
    with pytest.raises(ValueError, match=message) as info:
        config_from_dict(algo, values)
    assert "\n" not in str(info.value)


def test_bad_files_and_overrides(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_config("grpo", tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("group_size = = 3\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config("grpo", bad)
    assert parse_overrides(["--resume", "--plots", "false", "--progress"]) == {
        "resume": "true", "plots": "false", "progress": "true"}
    with pytest.raises(ValueError, match="config key 'lr' must be a float, got 'true'"):
        load_config("grpo", overrides=parse_overrides(["--lr", "--updates", "3"]))
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_overrides(["--set", "lr"])
    with pytest.raises(ValueError, match="unexpected argument"):
        parse_overrides(["lr=3"])


def test_example_configs_load():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "configs"
    files = sorted(root.glob("*.toml"))
    assert len(files) >= 4
    for path in files:
        algo = "sft" if "sft" in path.stem else "vpr" if "vpr" in path.stem else "grpo"
        cfg = load_config(algo, path)
        assert cfg.env.startswith("agentgym/")
