"""Train a model on an agentgym env with TRL's GRPOTrainer, the env's moves as a tool.

    pip install 'agentgym[trl]'
    python examples/trl_grpo.py --env agentgym/TicTacToe-v0 --model tiny-random --steps 2

Each rollout is one episode: the dataset row's seed starts it, the model plays by calling the
``act`` tool (up to ``--tool-rounds`` calls), and the reward is what the env paid over the
episode (``--reward-mode`` picks process, outcome or both). ``--server-url`` plays the env on
an ``agentgym serve`` server instead of in this process. ``--model`` is ``tiny-random`` (a
smoke run: a random model seldom writes a valid tool call), ``smollm2`` or a transformers
model directory; a chat template without tools but in ChatML gets Qwen2.5's tool template.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="agentgym/TicTacToe-v0", help="an agentgym env id")
    parser.add_argument("--model", default="tiny-random",
                        help="tiny-random, smollm2 or a transformers model directory")
    parser.add_argument("--steps", type=int, default=2, help="optimizer steps")
    parser.add_argument("--episodes", type=int, default=64, help="seeds in the dataset (0..N-1)")
    parser.add_argument("--num-generations", type=int, default=2, help="rollouts per seed")
    parser.add_argument("--max-completion-length", type=int, default=1024,
                        help="tokens per rollout, tool responses included")
    parser.add_argument("--tool-rounds", type=int, default=4, help="tool calls per rollout")
    parser.add_argument("--reward-mode", choices=("both", "process", "outcome"), default="both")
    parser.add_argument("--learning-rate", type=float, default=1e-5)
    parser.add_argument("--server-url", default=None, help="play the env on this agentgym server")
    parser.add_argument("--output-dir", default=None, help="checkpoints (default: a temp dir)")
    parser.add_argument("--save", action="store_true", help="save the trained model there")
    args = parser.parse_args(argv)
    for name in ("steps", "episodes", "num_generations", "max_completion_length", "tool_rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.num_generations < 2:
        parser.error("--num-generations must be >= 2 (GRPO compares rollouts of one seed)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is "experimental"
    try:
        from trl import GRPOConfig, GRPOTrainer

        from agentgym.integrations.trl import (
            component_reward,
            environment_dataset,
            make_environment_factory,
            tool_chat_template,
        )
        from agentgym.llm.models import load_model, save_model
    except ImportError as error:
        missing = error.name or error
        print(f"error: {missing} is missing: pip install 'agentgym[trl]'", file=sys.stderr)
        return 2
    from agentgym.remote import RemoteEnvError

    env_kwargs = {"reward_mode": args.reward_mode}
    if args.server_url:
        env_kwargs["server_url"] = args.server_url
    try:
        factory = make_environment_factory(args.env, **env_kwargs)
        dataset = environment_dataset(args.env, range(args.episodes), **env_kwargs)
        model, tokenizer = load_model(args.model)
        tokenizer = tool_chat_template(tokenizer)
    except (ValueError, TypeError, RemoteEnvError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    output_dir = args.output_dir or tempfile.mkdtemp(prefix="agentgym-trl-")
    config = GRPOConfig(
        output_dir=output_dir,
        max_steps=args.steps,
        per_device_train_batch_size=args.num_generations,  # one seed's group per step
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        max_tool_calling_iterations=args.tool_rounds,
        learning_rate=args.learning_rate,
        # The process and outcome parts are logged beside the env's reward, at weight 0: the
        # env's own get_reward (added by TRL at weight 1) is what trains.
        reward_weights=[0.0, 0.0],
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=not _has_cuda(),
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=config,
        reward_funcs=[component_reward("process"), component_reward("outcome")],
        train_dataset=dataset,
        environment_factory=factory,
    )
    trainer.train()
    for row in trainer.state.log_history:
        if "reward" in row:
            print(f"step {row['step']}: reward {row['reward']:.3f} "
                  f"(process {row['rewards/process_reward/mean']:.3f}, "
                  f"outcome {row['rewards/outcome_reward/mean']:.3f}), "
                  f"tool calls per rollout {row.get('tools/call_frequency', 0.0):.2f}")
    if args.save:
        print(f"saved to {save_model(trainer.model, tokenizer, output_dir)}")
    return 0


def _has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


if __name__ == "__main__":
    sys.exit(main())
