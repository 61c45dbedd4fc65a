#!/bin/bash
set -euo pipefail
cd /app
printf 'Add pagination to the list endpoint\n\nCloses #12.\n' > /tmp/msg
# mark the one commit for rewording, and let the "editor" write the new message
GIT_SEQUENCE_EDITOR="sed -i 's/^pick \([0-9a-f]*\) Add pagnation/reword \1 Add pagnation/'" \
GIT_EDITOR="cp /tmp/msg" \
git rebase -i HEAD~4
git log --format='%h %s' 
