"""``ringgames import``: good files go in, bad ones are reported with the reason."""

from click.testing import CliRunner

from ringgames.cli import main


def test_import_command(tmp_path, boardspace_files):
    bad = tmp_path / "broken.rgn"
    bad.write_text('[Game "yinsh"]\n\n1. e5\n2. q99\n')
    db = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    r = CliRunner().invoke(main, ["import", "--db", db, str(boardspace_files[0]), str(bad), str(boardspace_files[1]), str(tmp_path / "missing.sgf")])
    assert r.exit_code == 1
    assert r.output.count("imported as") == 2
    assert "broken.rgn" in r.output and "q99" in r.output
    assert "missing.sgf: cannot read" in r.output
    import sqlite3

    con = sqlite3.connect(tmp_path / "a.sqlite3")
    assert con.execute("select count(*) from games where source='import'").fetchone()[0] == 2
    assert con.execute("select count(*) from moves").fetchone()[0] > 40


def test_import_command_skips_a_game_already_in_the_archive(tmp_path, boardspace_files):
    import sqlite3

    db = f"sqlite:///{tmp_path / 'b.sqlite3'}"
    first = CliRunner().invoke(main, ["import", "--db", db, str(boardspace_files[0])])
    assert first.exit_code == 0 and first.output.count("imported as") == 1
    again = CliRunner().invoke(main, ["import", "--db", db, str(boardspace_files[0]), str(boardspace_files[1])])
    assert again.exit_code == 0, again.output
    assert again.output.count("imported as") == 1 and "already in the archive as" in again.output
    assert "1 already in the archive" in again.output
    con = sqlite3.connect(tmp_path / "b.sqlite3")
    assert con.execute("select count(*) from games where source='import'").fetchone()[0] == 2
