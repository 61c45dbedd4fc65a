export PYTHONDONTWRITEBYTECODE=1
! git -C /app cat-file --batch-all-objects --batch | grep -q sk_live_9Qm2TzR7vK4pL8xW3nB6yD1f
