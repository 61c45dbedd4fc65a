from calc import divide


def test_divide():
    assert divide(1, 3) == 0.3333
