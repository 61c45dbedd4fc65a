"""The TRL adapter: tool calls step the env, rewards are the env's, local and remote, and
TRL's own ``GRPOTrainer`` trains two steps against TicTacToe through it on CPU."""

from __future__ import annotations

import inspect
import json
import os
import sys

import gymnasium as gym
import pytest

pytest.importorskip("trl", reason="the TRL adapter needs trl (pip install agentgym[trl])")
pytest.importorskip("datasets", reason="the TRL adapter needs datasets (a dependency of trl)")

from agentgym.integrations.trl import (
    TOOL_NOTE,
    AgentgymEnvironment,
    component_reward,
    environment_dataset,
    make_environment_factory,
    tool_chat_template,
)

TICTACTOE = "agentgym/TicTacToe-v0"


class Recorder(gym.Wrapper):
    """Records what reaches the env: the seeds of its resets and each step's action and reward."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.seeds: list[int | None] = []
        self.steps: list[tuple[str, float]] = []

    def reset(self, *, seed=None, options=None):
        self.seeds.append(seed)
        self.episode: list[float] = []
        return self.env.reset(seed=seed, options=options)

    def step(self, action):
        result = self.env.step(action)
        self.steps.append((action, float(result[1])))
        self.episode.append(float(result[1]))
        return result


def test_act_steps_the_env_and_the_reward_is_the_envs():
    recorder = Recorder(gym.make(TICTACTOE, invalid_penalty=-0.25))
    env = AgentgymEnvironment(recorder)
    text = env.reset(seed=5, prompt=[{"role": "user", "content": ""}])
    direct_obs, _ = gym.make(TICTACTOE).reset(seed=5)
    assert recorder.seeds == [5]
    assert text.endswith(direct_obs) and TOOL_NOTE in text  # no system turn: rules come first
    reply = env.act("2 2")
    assert recorder.steps[-1][0] == "2 2"
    assert f"Reward: {recorder.steps[-1][1]:g}." in reply and env.steps == 1
    reply = env.act("2 2")  # occupied now: invalid, penalised, counted
    assert "Invalid action" in reply and env.invalid_actions == 1
    assert env.rewards == tuple(r for _, r in recorder.steps)
    assert env.get_reward() == pytest.approx(sum(r for _, r in recorder.steps))
    assert env.get_reward() == pytest.approx(-0.25)  # 0 for the centre, the penalty -0.25
    parts = env.reward_components
    assert parts["process"] + parts["outcome"] == pytest.approx(env.get_reward())
    assert component_reward("process")(environments=[env]) == [parts["process"]]


def test_an_episode_played_to_its_end_refuses_more_actions():
    env = AgentgymEnvironment(TICTACTOE, reward_mode="outcome")
    env.reset(seed=0)
    reply = ""
    while not env.done:
        reply = env.act(env.info["available_actions"][0])
    assert "The episode is over" in reply
    assert env.get_reward() == pytest.approx(env.reward_components["outcome"])
    assert all(r == 0.0 for r in env.rewards[:-1])  # outcome mode: only the last step pays
    with pytest.raises(ValueError, match="episode is over"):
        env.act("1 1")
    env.reset(seed=1)  # a new episode starts a new account
    assert env.rewards == () and not env.done


def test_reset_text_and_seeds():
    env = AgentgymEnvironment(TICTACTOE, seed=10)
    with pytest.raises(RuntimeError, match="reset"):
        env.act("1 1")
    system = [{"role": "system", "content": "rules"}, {"role": "user", "content": ""}]
    text = env.reset(prompt=system)
    assert not text.startswith("\n") and TOOL_NOTE not in text  # the system turn has the rules
    assert env.env.unwrapped.episode_seed == 10
    env.reset(prompt=[{"role": "user", "content": "Play well."}])
    assert env.env.unwrapped.episode_seed == 11  # no seed column: the counter's next
    env.reset(seed=3, prompt=system)
    assert env.env.unwrapped.episode_seed == 3  # a seed column wins
    appended = env.reset(seed=3, prompt=[{"role": "system", "content": "r"},
                                         {"role": "user", "content": "Play well."}])
    assert appended.startswith("\n\n")  # kept apart from the row's own text


def test_bad_input_is_one_line_errors():
    with pytest.raises(ValueError, match="cannot make 'agentgym/NoSuch-v0'"):
        make_environment_factory("agentgym/NoSuch-v0")
    with pytest.raises(ValueError, match="need an env id"):
        AgentgymEnvironment(gym.make(TICTACTOE), max_steps=3)
    with pytest.raises(TypeError, match=r"env id or a gymnasium\.Env"):
        AgentgymEnvironment(3)
    with pytest.raises(ValueError, match="seed"):
        AgentgymEnvironment(TICTACTOE, seed=-1)
    with pytest.raises(ValueError, match="seeds"):
        environment_dataset(TICTACTOE, [])
    env = AgentgymEnvironment(TICTACTOE)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="action must be a string"):
        env.act(["1 1"])
    assert "Reward" in env.act(5)  # a cell number written as a JSON number still plays


def test_trl_sees_one_tool_with_a_schema():
    from transformers.utils import get_json_schema

    # What GRPOTrainer does: every public function of the class but reset / get_reward.
    tools = [name for name, _ in inspect.getmembers(AgentgymEnvironment, inspect.isfunction)
             if name not in ("reset", "get_reward") and not name.startswith("_")]
    assert tools == ["act"]
    schema = get_json_schema(AgentgymEnvironment(TICTACTOE).act)["function"]
    assert schema["name"] == "act"
    assert schema["parameters"]["properties"]["action"]["type"] == "string"
    assert schema["parameters"]["required"] == ["action"]


def test_tool_chat_template():
    from trl.chat_template_utils import supports_tool_calling

    from agentgym.llm.models import byte_tokenizer

    tokenizer = byte_tokenizer()
    assert not supports_tool_calling(tokenizer)
    assert supports_tool_calling(tool_chat_template(tokenizer))
    tokenizer.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    with pytest.raises(ValueError, match="not ChatML"):
        tool_chat_template(tokenizer)


def test_remote_env_through_the_adapter_matches_the_local_one():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "server"))
    from server_support import ServerProcess

    server = ServerProcess(env_ids=(TICTACTOE,)).start()
    try:
        factory = make_environment_factory(TICTACTOE, server_url=server.url)
        remote, local = factory(), AgentgymEnvironment(TICTACTOE)
        assert type(remote.env.unwrapped).__name__ == "RemoteEnv"
        row = environment_dataset(TICTACTOE, [4], server_url=server.url)[0]
        assert row["prompt"] == environment_dataset(TICTACTOE, [4])[0]["prompt"]
        assert remote.reset(**row) == local.reset(**row)
        for action in ("2 2", "1 1", "9", "oops"):
            if local.done:
                break
            assert remote.act(action) == local.act(action)
        assert remote.rewards == local.rewards and remote.get_reward() == local.get_reward()
        remote.env.close()
    finally:
        server.stop()


def _tool_call(action: str) -> str:
    arguments = json.dumps({"action": action})
    return f'<tool_call>\n{{"name": "act", "arguments": {arguments}}}\n</tool_call><|im_end|>'


def _forced_calls(tokenizer, first: str, then: str) -> list:
    # transformers' `sequence_bias` generation option: after an anchor plus the first k tokens
    # of a call, token k+1 gets a large logit bonus, so the random model writes exactly that
    # call and the run goes through TRL's tool loop. The first assistant turn plays `first`;
    # a turn that follows a tool response matches the longer anchor too, whose larger bonus
    # makes it play `then`.
    biases = []
    for anchor, action, bonus in (("<|im_start|>assistant\n", first, 100.0),
                                  ("</tool_response><|im_end|>\n<|im_start|>assistant\n", then,
                                   300.0)):
        prefix = tokenizer.encode(anchor, add_special_tokens=False)
        ids = tokenizer.encode(_tool_call(action), add_special_tokens=False)
        biases += [[prefix + ids[: k + 1], bonus] for k in range(len(ids))]
    return biases


def _grpo_two_steps(tmp_path, monkeypatch, factory, observed) -> tuple[object, list[dict]]:
    """Two GRPOTrainer steps of a tiny random model (forced to play "2 2" then "1 3") on CPU;
    ``observed`` is a weight-0 reward function; returns the trainer and its reward logs."""
    from transformers import TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from agentgym.llm.models import byte_tokenizer, tiny_random_model

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    tokenizer = tool_chat_template(byte_tokenizer())
    logged: list[dict] = []

    class Logs(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "reward" in logs:
                logged.append(dict(logs))

    args = GRPOConfig(
        output_dir=str(tmp_path), max_steps=2, per_device_train_batch_size=2, num_generations=2,
        max_completion_length=1400, max_tool_calling_iterations=2, logging_steps=1,
        report_to="none", save_strategy="no", use_cpu=True, disable_tqdm=True, seed=0,
        reward_weights=[0.0],  # TRL appends the env's get_reward with weight 1
        generation_kwargs={"sequence_bias": _forced_calls(tokenizer, "2 2", "1 3")},
    )
    trainer = GRPOTrainer(
        model=tiny_random_model(tokenizer, seed=0), processing_class=tokenizer, args=args,
        reward_funcs=[observed], environment_factory=factory, callbacks=[Logs()],
        train_dataset=environment_dataset(TICTACTOE, range(4), system_prompt="Play tic-tac-toe."),
    )
    trainer.train()
    return trainer, logged


# slow: two GRPOTrainer steps of real generation (~7 s of CPU)
@pytest.mark.slow
def test_grpo_trainer_two_steps_on_cpu(tmp_path, monkeypatch):
    recorders: list[Recorder] = []
    scored: list[list[float]] = []

    def factory() -> AgentgymEnvironment:
        recorders.append(Recorder(gym.make(TICTACTOE)))
        return AgentgymEnvironment(recorders[-1])

    def observed(environments, **_):
        # What the env itself paid each rollout, read below the adapter.
        scored.append([sum(_recorder_of(e, recorders).episode) for e in environments])
        return [0.0] * len(environments)

    trainer, logged = _grpo_two_steps(tmp_path, monkeypatch, factory, observed)

    assert trainer.state.global_step == 2
    assert len(logged) == 2 and len(scored) == 2
    played = [r for r in recorders if r.seeds]
    assert played and all(seed is not None for r in played for seed in r.seeds)
    # Each rollout made its two tool calls, and they reached its env in order.
    assert all([a for a, _ in r.steps] == ["2 2", "1 3"] * len(r.seeds) for r in played)
    for row, rewards in zip(logged, scored, strict=True):
        assert row["tools/call_frequency"] == 2
        assert row["rewards/AgentgymEnvironment/mean"] == pytest.approx(sum(rewards) / 2)
        assert row["reward"] == pytest.approx(sum(rewards) / 2)


# slow: two GRPOTrainer steps against a live server (~8 s of CPU)
@pytest.mark.slow
def test_grpo_trainer_against_a_remote_env(tmp_path, monkeypatch):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "server"))
    from server_support import ServerProcess

    server = ServerProcess(env_ids=(TICTACTOE,)).start()
    episodes: list[tuple[int, tuple[float, ...]]] = []

    def observed(environments, **_):
        episodes.extend((e.env.unwrapped.episode_seed, e.rewards) for e in environments)
        return [0.0] * len(environments)

    try:
        factory = make_environment_factory(TICTACTOE, server_url=server.url)
        trainer, logged = _grpo_two_steps(tmp_path, monkeypatch, factory, observed)
    finally:
        server.stop()
    assert trainer.state.global_step == 2 and len(episodes) == 4
    # The same seeds and moves played locally pay what the server's env paid and TRL logged.
    for step, row in enumerate(logged):
        local = []
        for seed, rewards in episodes[2 * step: 2 * step + 2]:
            env = AgentgymEnvironment(TICTACTOE)
            env.reset(seed=seed)
            env.act("2 2")
            env.act("1 3")
            assert env.rewards == rewards
            local.append(env.get_reward())
        assert row["rewards/AgentgymEnvironment/mean"] == pytest.approx(sum(local) / 2)


def _recorder_of(environment: AgentgymEnvironment, recorders: list[Recorder]) -> Recorder:
    env = environment.env
    assert env in recorders
    return env


def test_the_example_answers_bad_input_in_one_line(capsys):
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                        "examples", "trl_grpo.py")
    spec = importlib.util.spec_from_file_location("trl_grpo_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--env", "agentgym/NoSuch-v0"]) == 2
    assert example.main(["--model", "/no/such/model"]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and all(line.startswith("error: ") for line in errors)
    assert "NoSuch" in errors[0] and "/no/such/model" in errors[1]
    with pytest.raises(SystemExit):
        example.parse_args(["--num-generations", "1"])


def test_the_module_doctests():
    import doctest

    import agentgym.integrations.trl as adapter

    results = doctest.testmod(adapter, optionflags=doctest.ELLIPSIS)
    assert results.attempted >= 15 and results.failed == 0
