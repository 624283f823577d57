"""lanes/fixed_in.py: the first version that fixes a finding and any that brings it back."""

from __future__ import annotations

from workbench.lanes.fixed_in import ordered, timeline


def test_versions_are_read_in_version_order_not_as_listed():
    assert ordered(["0.34.0", "0.100.0", "0.32.0", "0.34.1rc1", "0.34.1", "0.33.0"]) == [
        "0.32.0", "0.33.0", "0.34.0", "0.34.1rc1", "0.34.1", "0.100.0"]


def test_fixed_then_back_then_fixed_again():
    t = timeline({"0.35.0": False, "0.32.0": True, "0.34.0": True, "0.33.0": False})
    assert t["order"] == ["0.32.0", "0.33.0", "0.34.0", "0.35.0"]
    assert (t["fixed_in"], t["back_in"], t["new_in"]) == ("0.33.0", ["0.34.0"], None)
    assert t["text"] == "fixed in 0.33.0, back in 0.34.0, fixed in 0.35.0"


def test_present_everywhere_new_later_and_unknown_versions():
    assert timeline({"0.32.0": True, "0.33.0": True, "0.34.0": True})["text"] == "not fixed in any version here"
    new = timeline({"0.32.0": False, "0.33.0": False, "0.34.0": True})
    assert (new["new_in"], new["fixed_in"], new["text"]) == ("0.34.0", None, "new in 0.34.0")
    # a version that could not run is skipped, not read as "gone"
    gap = timeline({"0.32.0": True, "0.33.0": None, "0.34.0": False})
    assert (gap["fixed_in"], gap["unknown"], gap["text"]) == ("0.34.0", ["0.33.0"], "fixed in 0.34.0")
    assert timeline({"0.32.0": False, "0.33.0": False})["text"] == ""
