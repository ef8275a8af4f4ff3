"""The audit-loss command line (issue 9, classes 8-10): `--out` validated before anything runs and
written atomically, user text never becomes markdown structure, messages in the user's terms,
`--strict` and the documented exit status."""
from __future__ import annotations

import os

import pytest

from verify.audit import cli_main
from verify.audit.rendering import _draw_gap
from verify.lossparse import LossSyntaxError, parse_loss

FAST = ["--no-confirm", "--budget", "inf"]


@pytest.fixture
def no_audit(monkeypatch):
    """Fail if the audit starts: bad options must be rejected before it."""
    import verify.audit.cli as cli

    def boom(*a, **k):
        raise AssertionError("the audit ran although the command line was rejected")
    monkeypatch.setattr(cli, "audit", boom)


# ----------------------------------------------------------------------------- class 8: --out
@pytest.mark.parametrize("make", [
    lambda d: os.path.join(d, "missing", "a.md"),     # no such directory
    lambda d: d,                                      # a directory
    lambda d: d + os.sep,                             # a directory, spelled as one
    lambda d: "",                                     # empty
    lambda d: "   ",
])
def test_bad_out_paths_are_rejected_before_the_audit(tmp_path, capsys, no_audit, make):
    assert cli_main(["log(cosh(s))", *FAST, "--out", make(str(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("audit-loss: ") and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_out_does_not_follow_links_or_overwrite_silently(tmp_path, capsys, no_audit):
    target = tmp_path / "elsewhere.md"
    target.write_text("keep me")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    assert cli_main(["log(cosh(s))", *FAST, "--out", str(link)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert cli_main(["log(cosh(s))", *FAST, "--out", str(link), "--force"]) == 2
    assert cli_main(["log(cosh(s))", *FAST, "--out", str(target)]) == 2
    assert "--force" in capsys.readouterr().err
    assert target.read_text() == "keep me"


def test_out_writes_atomically_and_force_overwrites(tmp_path, capsys):
    path = tmp_path / "a.md"
    assert cli_main(["log(cosh(s))", *FAST, "--out", str(path)]) == 0
    first = path.read_text(encoding="utf-8")
    assert first.startswith("# Loss audit: `log(cosh(s))`")
    path.write_text("old")
    assert cli_main(["log(cosh(s))", *FAST, "--out", str(path), "--force"]) == 0
    assert path.read_text(encoding="utf-8").splitlines()[0] == first.splitlines()[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]   # no temporary file left


def test_dollar_signs_in_the_expression_do_not_break_the_figure(tmp_path):
    conf = {"etas": [0.1, 0.05, 0.02, 0.01], "gaps": [1e-1, 5e-2, 2e-2, 1e-2], "measured_gap_exponent": 1.0,
            "constant": 1.0, "predicted_gap_exponent": 1.0}
    for title in ("$s$ cost $5", "a$b$c$", "\\frac{$", "$$"):
        path = tmp_path / "g.png"
        _draw_gap(conf, str(path), title)
        assert path.stat().st_size > 0


@pytest.mark.parametrize("text", ["log(cosh(s)) # comment", "s**2 #\n# heading", "s\n# x", "s\r\n+1",
                                  "s*s\u2028+1"])
def test_comments_and_line_breaks_never_reach_the_markdown(text):
    with pytest.raises(LossSyntaxError):
        parse_loss(text)


# ----------------------------------------------------------------------------- class 9: messages
def test_a_flat_sum_is_not_nesting():
    parse_loss("s" + "+s" * 60)
    parse_loss("s" + "*s/2" * 50)
    with pytest.raises(LossSyntaxError, match="nesting"):
        parse_loss("sqrt(" * 45 + "s" + ")" * 45)


@pytest.mark.parametrize("text", ["s @ s", "s // 2", "s % 2", "s ^ 2", "s << 1", "not s", "s in s"])
def test_messages_quote_the_users_text_not_parser_names(text):
    with pytest.raises(LossSyntaxError) as info:
        parse_loss(text)
    msg = str(info.value)
    for internal in ("MatMult", "FloorDiv", "Mod", "BitXor", "LShift", "Load", "USub", "In "):
        assert f"`{internal}" not in msg


@pytest.mark.parametrize("text, char", [("\u0455**2", "CYRILLIC"), ("log(cosh(\u0455))", "CYRILLIC"),
                                         ("\u03bf + s", "GREEK")])
def test_lookalike_letters_are_named(text, char):
    with pytest.raises(LossSyntaxError) as info:
        parse_loss(text)
    assert char in str(info.value) and "Latin" in str(info.value)


@pytest.mark.parametrize("text", ["1e301*s**2", "s**2 + 2e305", "-1e400*s"])
def test_huge_numbers_are_called_large_not_infinite(text):
    with pytest.raises(LossSyntaxError) as info:
        parse_loss(text)
    assert "larger than" in str(info.value) and "not finite" not in str(info.value)


@pytest.mark.parametrize("expr", ["-s**2/2", "-(s**2)", "-1*Abs(s)"])
def test_a_leading_minus_is_an_expression_not_an_option(expr, capsys):
    assert cli_main([expr, *FAST]) == 0
    assert capsys.readouterr().out.startswith(f"loss: {expr}")


def test_text_output_carries_the_json_caveats(capsys):
    # A2 refuted: the predictions are printed with the note that they are not consequences
    assert cli_main(["Piecewise((s**2/2 + Abs(s)**3/6, Abs(s) <= 1), (Abs(s)*3/2 - 1/3, True))", *FAST]) == 0
    out = capsys.readouterr().out
    if "A2: refuted" in out:
        assert "note:" in out


# ----------------------------------------------------------------------------- class 10: exit status
def test_exit_status_is_documented_and_strict_fails_on_a1_or_a2(capsys):
    assert cli_main(["--help"]) == 0
    assert "exit status" in capsys.readouterr().out
    assert cli_main(["log(cosh(s))", *FAST, "--strict"]) == 0
    assert cli_main(["Abs(s)", *FAST]) == 0
    assert cli_main(["Abs(s)", *FAST, "--strict"]) == 1
    assert cli_main(["s**2/2", *FAST, "--strict"]) == 1            # not Lipschitz
    assert cli_main(["open('x')", *FAST, "--strict"]) == 2
    assert cli_main(["log(cosh(s))", "--budget", "-3"]) == 2
    assert cli_main(["log(cosh(s))", "--budget", "soon"]) == 2


def test_force_never_replaces_a_directory_where_the_figure_goes(tmp_path, capsys, no_audit):
    """--out a.md writes a_gap.png beside it: a directory of that name is refused before the audit,
    even with --force (it used to fail after the whole audit, naming the markdown file)."""
    (tmp_path / "a_gap.png").mkdir()
    assert cli_main(["log(cosh(s))", *FAST, "--out", str(tmp_path / "a.md"), "--force"]) == 2
    assert "a_gap.png" in capsys.readouterr().err
