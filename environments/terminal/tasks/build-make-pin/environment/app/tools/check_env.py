"""Fail unless the environment matches the pins: check_env.py REQUIREMENTS CONFIG."""
import configparser
import sys
from importlib import metadata


def main(requirements, config):
    problems = []
    with open(requirements) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, wanted = line.partition("==")
            try:
                have = metadata.version(name)
            except metadata.PackageNotFoundError:
                have = "not installed"
            if have != wanted:
                problems.append(f"{name}: pinned {wanted}, installed {have}")
    parser = configparser.ConfigParser()
    parser.read(config)
    wanted_py = parser["runtime"]["python"]
    have_py = f"{sys.version_info.major}.{sys.version_info.minor}"
    if have_py != wanted_py:
        problems.append(f"python: pinned {wanted_py}, running {have_py}")
    for problem in problems:
        print(f"check_env: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
