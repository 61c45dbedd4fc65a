#!/usr/bin/env bash
# Builds the env-server images, one per family: agentgym/server-games and
# agentgym/server-webshop, each FROM agentgym/base:bookworm (`agentgym docker build-base`).
#
# Nothing is pulled from a registry and pip never runs online inside `docker build`: the
# working tree is built into a wheel here (`pip wheel --no-deps`), its runtime dependencies
# are fetched here as wheels (`pip wheel`, pinned to the versions installed in $PYTHON's
# environment so a container computes what the local env computes), and pip itself comes as a
# wheel run straight from its file inside the image (the base image has no pip). Only the
# WebShop image's Chromium comes from Debian's mirror (apt-get inside the build).
#
# Cached: each image is tagged <name>:<source hash> (the package sources, the Dockerfile, this
# script and the pinned versions); when that tag exists the family is skipped without any
# download. <name>:latest always points at the newest build (docker/compose.yaml uses it), and
# <name>:<version from pyproject.toml> too (the Kubernetes manifests in k8s/ name it).
#
#   bash scripts/build_images.sh                 # both families
#   bash scripts/build_images.sh games           # just one
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
    FAMILIES=(games markets webshop)
fi

die() { echo "build_images: $*" >&2; exit 1; }

docker info >/dev/null 2>&1 || die "no Docker daemon answers (start one: scripts/start_docker.sh)"
docker image inspect "$BASE" >/dev/null 2>&1 \
    || die "$BASE is missing: build it first with \`sudo agentgym docker build-base\`"
# The wheels are picked for this interpreter's tags; the base image runs Debian's 3.11.
"$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
    || die "$PY is not Python 3.11 (the base image's); set PYTHON to a 3.11 interpreter"

extras_of() {
    case "$1" in
        games|markets) echo "server" ;;
        webshop) echo "server,browser" ;;
        *) die "unknown family '$1' (known: games markets webshop)" ;;
    esac
}

network_of() {  # the games build needs no network at all; WebShop's apt-gets Chromium
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

source_hash() {  # $1 family: 12 hex digits over what goes into its image
    {
        find agentgym environments trainers leaderboard -type f \
            -not -path '*/__pycache__/*' -not -name '*.pyc' -print0 | sort -z \
            | xargs -0 sha256sum
        sha256sum pyproject.toml README.md "docker/$1/Dockerfile" scripts/build_images.sh
        echo "$PINS"
        echo "pip==$PIP_VERSION"
        docker image inspect --format '{{.Id}}' "$BASE"
    } | sha256sum | cut -c1-12
}

build_family() {
    local family="$1" extras hash name ctx start
    extras="$(extras_of "$family")"
    name="agentgym/server-$family"
    hash="$(source_hash "$family")"
    if [[ -z "${FORCE:-}" ]] && docker image inspect "$name:$hash" >/dev/null 2>&1; then
        docker tag "$name:$hash" "$name:latest"
        docker tag "$name:$hash" "$name:$VERSION"
        echo "$name:$hash is up to date"
        return
    fi
    start=$SECONDS
    ctx="$WORK/$family"
    mkdir -p "$ctx/wheels"
    cp "docker/$family/Dockerfile" "$ctx/Dockerfile"
    echo "$PINS" > "$ctx/constraints.txt"
    echo "$name: building the agentgym wheel"
    "$PY" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
        -w "$ctx/wheels" "$ROOT" \
        || "$PY" -m pip wheel --quiet --disable-pip-version-check --no-deps \
            -w "$ctx/wheels" "$ROOT"
    local wheel
    wheel="$(ls "$ctx"/wheels/agentgym-*.whl)"
    echo "$name: fetching the wheels of agentgym[$extras] and pip==$PIP_VERSION"
    "$PY" -m pip wheel --quiet --disable-pip-version-check -c "$ctx/constraints.txt" \
        -w "$ctx/wheels" "$wheel[$extras]"
    "$PY" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --no-deps \
        -d "$ctx/wheels" "pip==$PIP_VERSION"
    echo "$name: docker build ($(du -sh "$ctx/wheels" | cut -f1) of wheels)"
    docker build --quiet --pull=false --force-rm --network "$(network_of "$family")" --build-arg "EXTRAS=$extras" \
        --label "agentgym.server-image=$family" --label "agentgym.source-hash=$hash" \
        -t "$name:$hash" -t "$name:latest" -t "$name:$VERSION" "$ctx" >/dev/null
    echo "$name:$hash built in $((SECONDS - start)) s"
    # Older source hashes of this family would pile up (the WebShop image is 1.4 GB); one in
    # use by a container stays (rmi refuses), and goes on a later build.
    docker images --format '{{.Repository}}:{{.Tag}}' "$name" \
        | grep -v -e ":$hash\$" -e ':latest$' -e ":$VERSION\$" | xargs -r docker rmi >/dev/null 2>&1 || true
}

WORK="$(mktemp -d "${TMPDIR:-/tmp}/agentgym-images.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
for family in "${FAMILIES[@]}"; do
    build_family "$family"
done
