import os
import re
from pathlib import Path

PHOTOS = Path("/app/photos")
EXPECTED = {'beach_day.jpg': 'photo-00 original name: Beach Day.JPG\n',
 'img_0012.jpg': 'photo-01 original name: IMG 0012.Jpeg\n',
 'family_trip.png': 'photo-02 original name: family_Trip.PNG\n',
 'sunset_over_lake.jpg': 'photo-03 original name: Sunset Over Lake.jpg\n',
 'dsc_1044.jpg': 'photo-04 original name: DSC_1044.JPEG\n',
 'mom_and_dad.png': 'photo-05 original name: Mom and Dad.png\n',
 'birthday_cake_2.jpg': 'photo-06 original name: Birthday Cake 2.JPG\n',
 'snow.jpg': 'photo-07 original name: snow.jpg\n',
 'new_year_party.gif': 'photo-08 original name: New Year Party.GIF\n',
 'old_town__square.jpg': 'photo-09 original name: Old Town  Square.jpeg\n',
 'cat.jpg': 'photo-10 original name: CAT.jpg\n',
 'dog_park.png': 'photo-11 original name: dog Park.Png\n'}


def names():
    return sorted(os.listdir(PHOTOS))


def test_exact_set_of_names():
    assert names() == sorted(EXPECTED)


def test_contents_follow_their_files():
    for name, text in EXPECTED.items():
        assert (PHOTOS / name).read_text() == text, name


def test_no_uppercase_or_spaces_left():
    # every file is there, lowercase and with underscores (its extension aside)
    bad = [n for n in names() if n != n.lower() or " " in n]
    assert not bad, bad
    assert sorted(re.sub(r"\.jpeg$", ".jpg", n) for n in names()) == sorted(EXPECTED)


def test_jpeg_became_jpg():
    assert not [n for n in names() if n.lower().endswith(".jpeg")]
    from_jpeg = [n for n, text in EXPECTED.items() if text.lower().rstrip().endswith(".jpeg")]
    assert from_jpeg
    for name in from_jpeg:
        assert (PHOTOS / name).read_text() == EXPECTED[name], name
