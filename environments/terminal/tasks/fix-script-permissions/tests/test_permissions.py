"""Hidden tests for fix-script-permissions. The scripts run as the agent through
agentgym_harness."""
import stat
from pathlib import Path

import agentgym_harness as agent

APP = Path("/app")
FILES = ['bin/README',
 'bin/backup.sh',
 'bin/hello.sh',
 'bin/notes.txt',
 'bin/tools/cleanup.sh',
 'bin/tools/deploy.sh',
 'bin/tools/list.txt',
 'config/app.conf',
 'config/db.conf',
 'config/extra/logging.conf',
 'config/secrets.env']
CONTENT = {'bin/hello.sh': '#!/bin/sh\necho hello\n',
 'bin/backup.sh': '#!/bin/sh\necho backup done\n',
 'bin/README': 'Scripts for the ops team.\n',
 'bin/notes.txt': 'hello.sh greets, backup.sh backs up.\n',
 'bin/tools/deploy.sh': '#!/bin/sh\necho deployed\n',
 'bin/tools/cleanup.sh': '#!/bin/sh\necho cleaned\n',
 'bin/tools/list.txt': 'deploy.sh cleanup.sh\n',
 'config/app.conf': 'name=shop\nport=8080\n',
 'config/db.conf': 'host=127.0.0.1\nport=5432\n',
 'config/secrets.env': 'DB_PASSWORD=hunter2\nAPI_TOKEN=abc123\n',
 'config/extra/logging.conf': 'level=info\n'}


def mode(rel):
    return stat.S_IMODE((APP / rel).stat().st_mode)


def test_scripts_are_755():
    scripts = [f for f in FILES if f.endswith(".sh")]
    assert {f: oct(mode(f)) for f in scripts} == {f: "0o755" for f in scripts}


def test_scripts_run():
    for f, word in [("bin/hello.sh", "hello"), ("bin/tools/deploy.sh", "deployed")]:
        out = agent.run([str(APP / f)], timeout=5)
        assert out.stdout.strip() == word


def test_other_bin_files_are_644():
    others = [f for f in FILES if f.startswith("bin/") and not f.endswith(".sh")]
    assert {f: oct(mode(f)) for f in others} == {f: "0o644" for f in others}


def test_secrets_env_is_600():
    assert oct(mode("config/secrets.env")) == "0o600"


def test_other_config_files_are_644():
    others = [f for f in FILES if f.startswith("config/") and f != "config/secrets.env"]
    assert {f: oct(mode(f)) for f in others} == {f: "0o644" for f in others}


def test_contents_unchanged_and_permissions_fixed():
    for f, text in CONTENT.items():
        assert (APP / f).read_text() == text, f
    assert mode("bin/backup.sh") == 0o755
