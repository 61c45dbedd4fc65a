"""Hidden tests for py-offbyone-parser.

The package runs through agentgym_harness (as the agent, in a child process); only the
inputs cross, and every answer is compared here."""
import agentgym_harness as agent


def calls(function: str, *args_list):
    """pagesel.<function> on each argument tuple: the values, asserting none raised."""
    outcomes = agent.call_many("pagesel", function, list(args_list))
    for args, got in zip(args_list, outcomes, strict=True):
        assert got.error is None, f"{function}{args!r} raised {got.error}"
    return [got.value for got in outcomes]


def test_inclusive_ranges():
    assert calls("parse_ranges", ("1-3,5", 10), (" 4-4 , 2-3, 3 ", 10), ("1-10", 10)) == [
        [1, 2, 3, 5], [2, 3, 4], list(range(1, 11))]


def test_open_ranges_and_bounds():
    assert calls("parse_ranges", ("8-", 10), ("-2", 10), ("10", 10), ("1", 1)) == [
        [8, 9, 10], [1, 2], [10], [1]]
    bad = ("0", "11", "9-11", "5-3", "0-2")
    outcomes = agent.call_many("pagesel", "parse_ranges", [(b, 10) for b in bad])
    for text, got in zip(bad, outcomes, strict=True):
        assert got.raised("ValueError"), (text, got)


def test_select_is_one_based():
    lines = ["a", "b", "c", "d", "e"]
    assert calls("select", (lines, "1,3"), (lines, "4-"), (lines, "-1")) == [
        ["a", "c"], ["d", "e"], ["a"]]


def test_chunk_keeps_the_last_chunk():
    assert calls("chunk", ([1, 2, 3, 4, 5], 2), ([1, 2, 3, 4], 2), ([1], 3), ([], 3)) == [
        [[1, 2], [3, 4], [5]], [[1, 2], [3, 4]], [[1]], []]


def test_cli():
    data = agent.tempdir() + "/pages.txt"
    agent.write(data, "".join(f"line {i}\n" for i in range(1, 8)))
    out = agent.run(["python3", "-m", "pagesel", "2-3,7", data], cwd="/app", timeout=10)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "line 2\nline 3\nline 7\n"
    bad = agent.run(["python3", "-m", "pagesel", "8", data], cwd="/app", timeout=10)
    assert bad.returncode == 1 and bad.stdout == ""
