#!/bin/sh
set -e
# deterministic commits: fixed author/committer and a clock that ticks one hour per commit
export GIT_AUTHOR_NAME="Dana Dev" GIT_AUTHOR_EMAIL="dana@example.com"
export GIT_COMMITTER_NAME="Dana Dev" GIT_COMMITTER_EMAIL="dana@example.com"
TICK=1704103200
commit() {
  TICK=$((TICK + 3600))
  GIT_AUTHOR_DATE="$TICK +0000" GIT_COMMITTER_DATE="$TICK +0000" git commit -q "$@"
}
cd /app
git init -q -b main .
mkdir docs
cat > util.py <<'X'
def sorted_copy(xs):
    return sorted(xs)


def middle_indices(n):
    if n == 0:
        raise ValueError("median of empty data")
    return (n - 1) // 2, n // 2
X
cat > stats.py <<'X'
from util import middle_indices, sorted_copy


def mean(xs):
    return sum(xs) / len(xs)


def median(xs):
    s = sorted_copy(xs)
    i, j = middle_indices(len(s))
    return (s[i] + s[j]) / 2
X
printf '# stats\n\nSmall statistics helpers.\n' > README.md
git add . ; commit -m "Add mean and median"
printf 'mean(xs): arithmetic mean.\n' > docs/api.md
git add . ; commit -m "Start API docs"
cat >> stats.py <<'X'


def mode(xs):
    counts = {}
    for x in xs:
        counts[x] = counts.get(x, 0) + 1
    return max(counts, key=lambda k: (counts[k], -k))
X
git add . ; commit -m "Add mode"
git tag v1.0
for n in 1 2 3 4; do
  printf 'Note %s: helpers accept any iterable of numbers.\n' "$n" >> docs/api.md
  git add . ; commit -m "Docs: usage notes ($n)"
done
# the sortutil move leaves two commits that cannot even be imported
sed -i 's/^from util import middle_indices, sorted_copy$/from sortutil import sorted_copy\nfrom util import middle_indices/' stats.py
git add . ; commit -m "Move sorted_copy to its own module"
printf 'def sorted_copy(xs)\n    return sorted(xs)\n' > sortutil.py
git add . ; commit -m "Add sortutil"
printf 'def sorted_copy(xs):\n    return sorted(xs)\n' > sortutil.py
git add . ; commit -m "Fix sortutil syntax"
cat >> util.py <<'X'


def clamp(x, lo, hi):
    return max(lo, min(hi, x))
X
git add . ; commit -m "Add clamp helper"
printf 'median(xs): middle value.\n' >> docs/api.md
git add . ; commit -m "Document median"
printf '\nLicensed under MIT.\n' >> README.md
git add . ; commit -m "Mention the licence"
cat > util.py <<'X'
def sorted_copy(xs):
    return sorted(xs)


def middle_indices(n):
    if n == 0:
        raise ValueError("median of empty data")
    lo = n // 2 - 1 if n % 2 == 0 else n // 2
    return lo, lo


def clamp(x, lo, hi):
    return max(lo, min(hi, x))
X
git add . ; commit -m "Simplify index arithmetic"
for n in 5 6 7; do
  printf 'Note %s: results are floats.\n' "$n" >> docs/api.md
  git add . ; commit -m "Docs: usage notes ($n)"
done
cat >> stats.py <<'X'


def variance(xs):
    m = mean(xs)
    return sum((x - m) ** 2 for x in xs) / len(xs)
X
git add . ; commit -m "Add variance"
sed -i 's/^def median(xs):$/def median(xs):\n    xs = list(xs)/' stats.py
git add . ; commit -m "Fix median for generators"
for n in 8 9 10 11 12; do
  printf 'Note %s: see the README.\n' "$n" >> docs/api.md
  git add . ; commit -m "Docs: usage notes ($n)"
done
cat >> util.py <<'X'


def chunks(xs, size):
    return [xs[i:i + size] for i in range(0, len(xs), size)]
X
git add . ; commit -m "Add chunks helper"
printf '\nSee docs/api.md.\n' >> README.md
git add . ; commit -m "Link the API docs"
