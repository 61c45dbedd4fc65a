# holds once restored/ exists and nothing was extracted to /app/project
[ -d restored ] && [ ! -e project ]
