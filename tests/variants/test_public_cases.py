"""Every public hand record passes through the path of ``tonk adjudicate --check``, none skipped."""

from __future__ import annotations

from tonk.application.adjudicate import adjudicate, compare


def test_every_public_case_is_adjudicated_and_matches(public_cases):
    assert len(public_cases) >= 16
    problems = {}
    for i, case in enumerate(public_cases):
        verdict = adjudicate(case, i)
        if verdict["status"] != "ok":
            problems[case["id"]] = [f"{verdict['status']}: {verdict.get('reason') or verdict.get('message')}"]
            continue
        diffs = compare(verdict, case)
        if diffs:
            problems[case["id"]] = diffs
    assert not problems, problems


def test_the_variant_cases_name_installed_variants(public_cases):
    used = {v for c in public_cases for v in c["ruleset"]["variants"]}
    assert {"double-requires-new-spread", "no-initial-discard", "mandatory-laydown", "hit-penalty", "caught-scheme"} <= used

