"""Run configs: TOML, command-line overrides of every key, one-line refusals."""

import json
from pathlib import Path

import pytest

from agentgym.trainers.config import (
    CONFIGS,
    GRPOConfig,
    VPRConfig,
    config_dict,
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
        return json.dumps({"max_steps": 5}), {"max_steps": 5}
    return None, None


CHOICES = {"advantage": "gigpo", "agg": "token-mean", "reward_mode": "outcome",
           "env": "agentgym/Sokoban-v0", "model": "smollm2", "out_dir": "runs/x",
           "device": "cuda", "dtype": "bfloat16", "system_prompt": "Play.", "agent": "random",
           "attn_implementation": "sdpa"}
# Keys whose other value needs a partner key set with it (eval_every needs eval_seeds), or
# that parse text into a list.
PAIRED = {"eval_every": (["--eval-seeds", "1:3"], "2", 2),
          "eval_seeds": ([], "100:103", [100, 101, 102])}


@pytest.mark.parametrize("algo", sorted(CONFIGS))
def test_every_key_can_be_overridden_from_the_command_line(algo):
    defaults = CONFIGS[algo]()
    for name in CONFIGS[algo].model_fields:
        if algo == "vpr" and name == "reward_mode":
            continue  # VPR has only "process" (refused otherwise: test_vpr_refuses_...)
        text, expected = a_different_value(getattr(defaults, name))
        extra = []
        if name in PAIRED:
            extra, text, expected = PAIRED[name]
        elif text is None:
            text = expected = CHOICES[name]
        if name in ("eps_low", "eps_high", "beta", "negative_weight"):
            text, expected = "0.1", 0.1
        if name == "gamma":
            text, expected = "0.5", 0.5
        cfg = load_config(algo, overrides=parse_overrides(
            [f"--{name.replace('_', '-')}", text, *extra]))
        assert getattr(cfg, name) == expected, name
        assert type(getattr(cfg, name)) is type(expected), name
        cfg = load_config(algo, overrides=parse_overrides(["--set", f"{name}={text}", *extra]))
        assert getattr(cfg, name) == expected, name


def test_toml_then_command_line(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('env = "agentgym/Sokoban-v0"\ngroup_size = 6\nlr = 1e-4\n'
                    'advantage = "dr_grpo"\n[env_kwargs]\nsize = 6\n')
    cfg = load_config("grpo", path, {"lr": "3e-5"})
    assert (cfg.group_size, cfg.lr, cfg.advantage, cfg.env_kwargs) == (6, 3e-5, "dr_grpo",
                                                                       {"size": 6})
    assert isinstance(cfg, GRPOConfig) and cfg.updates == GRPOConfig().updates


@pytest.mark.parametrize(
    ("algo", "values", "message"),
    [
        ("grpo", {"bogus": 1}, "unknown config key 'bogus' for grpo"),
        ("vpr", {"group_size": 4}, "unknown config key 'group_size' for vpr"),
        ("grpo", {"group_size": 1}, "group_size must be >= 2 for GRPO"),
        ("vpr", {"k": 1}, "k must be >= 2 for VPR"),
        ("grpo", {"group_size": "four"}, "group_size must be an integer, got 'four'"),
        ("grpo", {"lr": True}, "lr must be a finite number > 0, got True"),
        ("grpo", {"agg": "sum"},
         r"agg must be one of \('seq-mean', 'token-sum', 'token-mean'\), got 'sum'"),
        ("grpo", {"advantage": "ppo"},
         r"advantage must be one of \('grpo', 'dr_grpo', 'gigpo'\), got 'ppo'"),
        ("sft", {"batch_size": 0}, "batch_size must be >= 1"),
        ("sft", {"history_turns": -2}, "history_turns must be >= -1"),
        ("grpo", {"trainable_layers": -1}, "trainable_layers must be >= 0"),
        ("vpr", {"warmup_steps": -2}, "warmup_steps must be >= 0"),
        ("vpr", {"negative_weight": 1.5}, "negative_weight must be in \\[0, 1\\], got 1.5"),
        ("grpo", {"negative_weight": -0.5}, "negative_weight must be in"),
        ("vpr", {"trainable_layers": 2, "lora_rank": 4}, "trainable_layers or lora_rank"),
        ("grpo", {"env_kwargs": "[1]"}, "env_kwargs must be a dict"),
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
    with pytest.raises(ValueError, match="lr must be a finite number > 0, got 'true'"):
        load_config("grpo", overrides=parse_overrides(["--lr", "--updates", "3"]))
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_overrides(["--set", "lr"])
    with pytest.raises(ValueError, match="unexpected argument"):
        parse_overrides(["lr=3"])


CONFIG_FILES = sorted((Path(__file__).resolve().parents[2] / "configs").glob("*.toml"))


def test_there_are_example_configs():
    assert len(CONFIG_FILES) >= 4


@pytest.mark.parametrize("path", CONFIG_FILES, ids=lambda p: p.name)
def test_example_configs_load(path):
    algo = "sft" if "sft" in path.stem else "vpr" if "vpr" in path.stem else "grpo"
    cfg = load_config(algo, path)  # env_kwargs included: checked against the env's model
    assert isinstance(cfg, CONFIGS[algo]) and cfg.env.startswith("agentgym/")
    assert config_from_dict(algo, config_dict(cfg)) == cfg


# --- the pydantic models -------------------------------------------------------------------------


@pytest.mark.parametrize("algo", sorted(CONFIGS))
def test_every_key_has_a_description_and_config_dict_is_plain_json(algo):
    cls = CONFIGS[algo]
    assert all(f.description for f in cls.model_fields.values())
    values = config_dict(cls())
    assert list(values) == list(cls.model_fields)
    assert json.loads(json.dumps(values)) == values


def test_a_bad_value_in_a_toml_file_is_one_line_naming_the_key(tmp_path):
    for line, message in [("lr = inf", "lr must be a finite number > 0, got inf"),
                          ("eps_low = -0.1", "eps_low must be >= 0, got -0.1"),
                          ('dtype = "fp8"', "dtype must be one of"),
                          ("updates = 2.5", "updates must be an integer >= 1, got 2.5")]:
        path = tmp_path / "c.toml"
        path.write_text(line + "\n")
        with pytest.raises(ValueError, match=message) as info:
            load_config("grpo", path)
        assert "\n" not in str(info.value)


def test_a_bad_value_on_the_command_line_is_one_line_naming_the_key():
    for argv, message in [(["--temperature", "nan"],
                           "temperature must be a finite number > 0, got nan"),
                          (["--set", "max_turns=0"], "max_turns must be >= 1, got 0"),
                          (["--plots", "maybe"], "plots must be True or False, got 'maybe'"),
                          (["--set", "env_kwargs={size: 5}"], "env_kwargs must be a dict")]:
        with pytest.raises(ValueError, match=message) as info:
            load_config("vpr", overrides=parse_overrides(argv))
        assert "\n" not in str(info.value)
    # Text reads as the key's type: "1e-5" a float, "yes" a bool, "8" an int.
    cfg = load_config("vpr", overrides=parse_overrides(["--lr", "1e-5", "--resume", "yes",
                                                        "--k", "8"]))
    assert (cfg.lr, cfg.resume, cfg.k) == (1e-5, True, 8)


SOKOBAN = "agentgym/Sokoban-v0"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 99}, f"env_kwargs for {SOKOBAN}: size must be in \\[5, 10\\], got 99"),
        ({"sizee": 6}, f"{SOKOBAN} takes no kwarg 'sizee'; valid kwargs: "),
        ({"size": "6"}, "size must be an integer"),
    ],
)
def test_env_kwargs_the_env_refuses_are_refused_at_load_time(tmp_path, kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        config_from_dict("grpo", {"env": SOKOBAN, "env_kwargs": kwargs})
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=message):
        load_config("sft", overrides={"env": SOKOBAN, "env_kwargs": json.dumps(kwargs)})
    path = tmp_path / "c.toml"
    path.write_text(f'env = "{SOKOBAN}"\n[env_kwargs]\n' +
                    "".join(f"{k} = {json.dumps(v)}\n" for k, v in kwargs.items()))
    with pytest.raises(ValueError, match=message):
        load_config("vpr", path)


def test_env_kwargs_that_are_not_the_envs_own_are_let_through():
    # server_url (and a RemoteEnv's own kwargs) are gym.make's, not the env's.
    cfg = config_from_dict("grpo", {"env": SOKOBAN, "env_kwargs": {
        "server_url": "http://127.0.0.1:1", "timeout": 5, "size": 6}})
    assert cfg.env_kwargs["timeout"] == 5
    assert config_from_dict("grpo", {"env": SOKOBAN, "env_kwargs": {"server_url": None}})
    # An id without a declared config, or not registered, is judged later (by gym.make, or by
    # agentgym train's own check that names the registered ids).
    assert config_from_dict("grpo", {"env": "CartPole-v1", "env_kwargs": {"x": 1}})
    assert config_from_dict("grpo", {"env": "nobody/Nope-v0", "env_kwargs": {"x": 1}})


def test_configs_are_frozen_and_check_catches_an_in_place_change():
    cfg = GRPOConfig()
    assert cfg.history is None
    with pytest.raises(ValueError, match="frozen"):
        cfg.group_size = 8
    with pytest.raises(ValueError, match="set trainable_layers or lora_rank, not both"):
        VPRConfig(trainable_layers=2, lora_rank=4)
    cfg = GRPOConfig(env=SOKOBAN)
    cfg.env_kwargs["size"] = 99  # changed in place: no validation ran
    with pytest.raises(ValueError, match="size must be in"):
        cfg.check()
