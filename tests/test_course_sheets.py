"""The autograded parts of the problem sheets (tools/course_sheets.py), without Otter or a
sandbox: each part's solution passes every one of its tests, and a wrong answer fails them."""

import pytest
from helpers import load_tool

sheets = load_tool("course_sheets")
PARTS = [(sheet, part) for sheet, parts in sheets.PARTS.items() for part in parts]


@pytest.mark.parametrize("sheet, part", PARTS, ids=[f"{s}-{p.name}" for s, p in PARTS])
def test_each_solution_passes_its_tests(sheet, part):
    names = {}
    exec(part.solution, names)
    assert set(part.answers) <= set(names), sorted(set(part.answers) - set(names))
    for test in part.tests:
        exec(test.code, dict(names))
    assert part.points > 0


def test_session_6_checks_the_second_moment_against_the_head_count():
    """m₂ = s²(2 + 1/H) + β⁴/2 at ℓ/d = 1/2: the answer for 2 heads fails the 20-head test."""
    (part,) = sheets.PARTS["session-06"]
    names = {}
    exec(part.solution, names)
    names["m2_20"] = names["m2_2"]
    with pytest.raises(AssertionError):
        for test in part.tests:
            exec(test.code, dict(names))
