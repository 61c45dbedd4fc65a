#!/usr/bin/env bash
# Builds the env-server images, one per family, each FROM agentgym/base:bookworm
# (`agentgym docker build-base`):
#
#   agentgym/server-python     agentgym[server], no ids of its own (docker/python)
#     agentgym/server-games      + the CMD naming its ids (docker/games: FROM server-python)
#     agentgym/server-markets    likewise (docker/markets)
#     agentgym/server-household  likewise (docker/household)
#     agentgym/server-searchqa   likewise (docker/searchqa)
#     agentgym/server-workplace  likewise (docker/workplace)
#   agentgym/server-webshop    agentgym[server,browser], Debian's Chromium, the search index
#
# The pure-Python families share one parent: its wheels are fetched and installed once, and
# each family's image adds a CMD only (no layer, built in about a second).
#
# Nothing is pulled from a registry and pip never runs online inside `docker build`: the
# working tree is built into a wheel here (`pip wheel --no-deps`), its runtime dependencies
# are fetched here as wheels (`pip wheel`, pinned to the versions installed in $PYTHON's
# environment so a container computes what the local env computes), and pip itself comes as a
# wheel run straight from its file inside the image (the base image has no pip). Only the
# WebShop image's Chromium comes from Debian's mirror (apt-get inside the build).
#
# Cached: each image is tagged <name>:<source hash> (the package sources, the Dockerfile, this
# script and the pinned versions; for a family on server-python: its Dockerfile, this script
# and the parent's image id); when that tag exists the image is skipped without any download.
# <name>:latest always points at the newest build (docker/compose.yaml uses it), and
# <name>:<version from pyproject.toml> too (the Kubernetes manifests in k8s/ name it).
#
#   bash scripts/build_images.sh                 # every image
#   bash scripts/build_images.sh games searchqa  # just these (and server-python, their parent)
#   FORCE=1 bash scripts/build_images.sh         # rebuild even when the tag exists
#   PYTHON=/usr/bin/python3 bash scripts/build_images.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BASE="agentgym/base:bookworm"
if [[ -n "${PYTHON:-}" ]]; then
    PY="$PYTHON"
elif [[ -x "$ROOT/.venv/bin/python" ]]; then
    PY="$ROOT/.venv/bin/python"
else
    PY="$(command -v python3)"
fi
# The release tag the Kubernetes manifests (k8s/) name, from pyproject.toml.
VERSION="$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
FAMILIES=("$@")
if [[ ${#FAMILIES[@]} -eq 0 ]]; then
    FAMILIES=(games markets household searchqa workplace webshop)
fi

die() { echo "build_images: $*" >&2; exit 1; }

docker info >/dev/null 2>&1 || die "no Docker daemon answers (start one: scripts/start_docker.sh)"
docker image inspect "$BASE" >/dev/null 2>&1 \
    || die "$BASE is missing: build it first with \`sudo agentgym docker build-base\`"
# The wheels are picked for this interpreter's tags; the base image runs Debian's 3.11.
"$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
    || die "$PY is not Python 3.11 (the base image's); set PYTHON to a 3.11 interpreter"

parent_of() {  # the image a family's Dockerfile is FROM, when it is one of these
    case "$1" in
        games|markets|household|searchqa|workplace) echo "python" ;;
        python|webshop) echo "" ;;
        *) die "unknown image '$1' (known: python games markets household searchqa workplace webshop)" ;;
    esac
}

extras_of() {  # the agentgym extras installed in an image built from wheels
    case "$1" in
        python) echo "server" ;;
        webshop) echo "server,browser" ;;
    esac
}

network_of() {  # only WebShop's build needs a network: it apt-gets Chromium
    case "$1" in
        webshop) echo "default" ;;
        *) echo "none" ;;
    esac
}

# Pins: what $PYTHON's environment has installed (the project itself left out), so the image
# resolves to the same versions the local env runs with.
PINS="$("$PY" -m pip freeze --exclude-editable --disable-pip-version-check 2>/dev/null \
        | grep -E '^[A-Za-z0-9_.-]+==' | grep -v -i -E '^agentgym==' || true)"
PIP_VERSION="$("$PY" -m pip --version | awk '{print $2}')"

declare -A HASH=()  # image -> its source hash, computed once per run (hashing reads every source)

source_hash() {  # $1 image: 12 hex digits over what goes into it (its parent's in HASH already)
    local parent
    parent="$(parent_of "$1")"
    {
        if [[ -n "$parent" ]]; then
            # The parent's id stands for everything in it (sources, pins, base image).
            docker image inspect --format '{{.Id}}' "agentgym/server-$parent:${HASH[$parent]}"
        else
            find agentgym environments trainers leaderboard -type f \
                -not -path '*/__pycache__/*' -not -name '*.pyc' -print0 | sort -z \
                | xargs -0 sha256sum
            sha256sum pyproject.toml README.md
            echo "$PINS"
            echo "pip==$PIP_VERSION"
            docker image inspect --format '{{.Id}}' "$BASE"
        fi
        sha256sum "docker/$1/Dockerfile" scripts/build_images.sh
    } | sha256sum | cut -c1-12
}

declare -A BUILT=()  # images done in this run (a parent is asked for by several families)

build_image() {
    local family="$1" parent name hash ctx start
    [[ -n "${BUILT[$family]:-}" ]] && return
    parent="$(parent_of "$family")"
    [[ -n "$parent" ]] && build_image "$parent"
    name="agentgym/server-$family"
    hash="$(source_hash "$family")"
    HASH[$family]="$hash"
    BUILT[$family]=1
    if [[ -z "${FORCE:-}" ]] && docker image inspect "$name:$hash" >/dev/null 2>&1; then
        docker tag "$name:$hash" "$name:latest"
        docker tag "$name:$hash" "$name:$VERSION"
        echo "$name:$hash is up to date"
        return
    fi
    start=$SECONDS
    ctx="$WORK/$family"
    mkdir -p "$ctx"
    cp "docker/$family/Dockerfile" "$ctx/Dockerfile"
    local args=()
    if [[ -n "$parent" ]]; then
        # The context is the Dockerfile alone: the parent holds everything installed.
        args=(--build-arg "PARENT=agentgym/server-$parent:${HASH[$parent]}")
        echo "$name: docker build on agentgym/server-$parent"
    else
        fetch_wheels "$name" "$ctx" "$(extras_of "$family")"
        args=(--build-arg "EXTRAS=$(extras_of "$family")")
        echo "$name: docker build ($(du -sh "$ctx/wheels" | cut -f1) of wheels)"
    fi
    docker build --quiet --pull=false --force-rm --network "$(network_of "$family")" "${args[@]}" \
        --label "agentgym.server-image=$family" --label "agentgym.source-hash=$hash" \
        -t "$name:$hash" -t "$name:latest" -t "$name:$VERSION" "$ctx" >/dev/null
    echo "$name:$hash built in $((SECONDS - start)) s"
    # The install stage's images (untagged, labelled in the Dockerfile) are only a build cache
    # of wheels that change with every source change: drop them.
    docker image prune --force --filter "label=agentgym.build-stage=install" >/dev/null
    # Older source hashes of this image would pile up (the WebShop image is 1.4 GB); one in
    # use by a container (or by a child image) stays (rmi refuses), and goes on a later build.
    docker images --format '{{.Repository}}:{{.Tag}}' "$name" \
        | grep -v -e ":$hash\$" -e ':latest$' -e ":$VERSION\$" | xargs -r docker rmi >/dev/null 2>&1 || true
}

fetch_wheels() {  # $1 image name, $2 build context, $3 extras: $2/wheels for an offline install
    local name="$1" ctx="$2" extras="$3" wheel
    mkdir -p "$ctx/wheels"
    echo "$PINS" > "$ctx/constraints.txt"
    echo "$name: building the agentgym wheel"
    "$PY" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
        -w "$ctx/wheels" "$ROOT" \
        || "$PY" -m pip wheel --quiet --disable-pip-version-check --no-deps \
            -w "$ctx/wheels" "$ROOT"
    wheel="$(ls "$ctx"/wheels/agentgym-*.whl)"
    echo "$name: fetching the wheels of agentgym[$extras] and pip==$PIP_VERSION"
    "$PY" -m pip wheel --quiet --disable-pip-version-check -c "$ctx/constraints.txt" \
        -w "$ctx/wheels" "$wheel[$extras]"
    "$PY" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --no-deps \
        -d "$ctx/wheels" "pip==$PIP_VERSION"
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/agentgym-images.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
for family in "${FAMILIES[@]}"; do
    parent_of "$family" >/dev/null  # an unknown name fails before any build
done
for family in "${FAMILIES[@]}"; do
    build_image "$family"
done
