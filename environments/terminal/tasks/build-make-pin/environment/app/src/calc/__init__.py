"""calc: division with a configured precision (calc.ini, section [calc])."""
import configparser
from pathlib import Path

__version__ = "2.4.1"

_CONFIG = Path(__file__).resolve().parents[2] / "calc.ini"


def precision():
    parser = configparser.ConfigParser()
    parser.read(_CONFIG)
    return int(parser["calc"]["precision"])


def divide(a, b):
    """a / b rounded to precision() decimals; ZeroDivisionError when b == 0."""
    return round(a / b, precision())
