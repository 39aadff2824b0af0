"""Values and JSON errors as text read the same under numpy 1 and 2, Python 3.11 and 3.13."""
import json

import numpy as np
import pytest

from vart_addon.solver import text as T
from vart_addon.solver.text import float32_clean, float32_text, json_error, load_json, plain, show


@pytest.mark.parametrize("value, text", [
    (np.float64(0.5), "0.5"),
    (np.float32(0.5), "0.5"),
    (np.float64("nan"), "nan"),
    (np.float64("-inf"), "-inf"),
    (np.int64(3), "3"),
    (np.bool_(True), "True"),
    (np.array([1.0, 2.5]), "[1.0, 2.5]"),
    ((np.float64(1.0), 2), "[1.0, 2]"),
    ("knee", "'knee'"),
    (1e39, "1e+39"),
    (None, "None"),
])
def test_show_never_names_numpy_types(value, text):
    assert show(value) == text


def test_plain_gives_python_types():
    out = plain([np.float32(0.25), (np.int32(2), np.bool_(False))])
    assert out == [0.25, [2, False]]
    assert type(out[0]) is float and type(out[1][0]) is int and type(out[1][1]) is bool


@pytest.mark.parametrize("value, text", [
    (0.2, "0.2"), (np.float32(0.2), "0.2"), (0.1 + 0.2, "0.3"), (-1.5, "-1.5"), (0.0, "0"),
    (1e20, "1e+20"), (3.4e38, "3.4e+38"), (1e-7, "0.0000001"), (float("inf"), "inf"),
    (float("nan"), "nan"),
])
def test_float32_text_is_the_shortest_decimal_of_the_single_precision_value(value, text):
    assert float32_text(value) == text
    if np.isfinite(value):
        assert np.float32(float32_clean(value)) == np.float32(value)


@pytest.mark.parametrize("doc, where", [
    ('{"a": [1], }', (1, 10, "Illegal trailing comma before end of object")),
    ('[1,\n 2 ,\n ]', (2, 4, "Illegal trailing comma before end of array")),
    ('', (1, 1, "Expecting value")),
    ('{"a" 1}', (1, 6, "Expecting ':' delimiter")),
    ('[1, }', (1, 5, "Expecting value")),
    ('{"a": 1,]', (1, 9, "Expecting property name enclosed in double quotes")),
])
def test_json_errors_are_worded_alike_on_every_python(doc, where):
    with pytest.raises(json.JSONDecodeError) as e:
        json.loads(doc)
    assert json_error(e.value) == where


def test_show_writes_deep_nesting_as_an_ellipsis():
    """A bad value may be nested as deep as Python's JSON reader takes (about 1000 levels):
    writing it in full ran out of recursion (issue 35)."""
    deep = json.loads("[" * 950 + "]" * 950)
    assert show(deep) == "[" * 8 + "..." + "]" * 8
    assert show({"a": [1, {"b": np.float64(2.0)}]}) == "{'a': [1, {'b': 2.0}]}"


def test_load_json_refuses_deep_nesting_as_a_json_error_at_its_place():
    text = '{"a": "[[[[", "b":\n  ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(json.JSONDecodeError) as e:
        load_json(text)
    # the object is the first level, so the 500th "[" (after two spaces) is the 501st
    assert json_error(e.value) == (2, 2 + 500, "arrays and objects nested more than 500 deep")
    assert load_json('{"a": [[1]]}') == {"a": [[1]]}


def test_listed_names_the_first_and_counts_the_rest():
    assert T.listed([], 3) == ""
    assert T.listed(["a", "b"], 3) == "a, b"
    assert T.listed(["a", "b", "c"], 3) == "a, b, c"
    assert T.listed(["a", "b", "c", "d", "e"], 3) == "a, b, c and 2 more"
    assert T.listed(("x", "y"), 1) == "x and 1 more"
