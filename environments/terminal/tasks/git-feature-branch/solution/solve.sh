#!/bin/bash
set -euo pipefail
cd /app
git branch -m wip experiment
git checkout -b feature/friendly-greeting main
printf 'print("Hello, friend!")\n' > greet.py
git commit -am "Make greeting friendlier"
