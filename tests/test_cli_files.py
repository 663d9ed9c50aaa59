"""``skbn`` on CSV files written as real tools write them (R's ``write.csv2`` and
``write.table``, Excel, pandas): read as their author meant, or a one-line error that names
the line or column and the option to pass -- never a silent misread."""

import numpy as np
import pandas as pd
import pytest
from conftest import assert_cli_learns_what_the_api_learns, assert_one_line_error, linked_measurements
from conftest import run_cli as run


def _measurements():
    """Three linked measurements with one decimal, some of them whole (``5.0``)."""
    return linked_measurements(300, 5, mean=6, sd=1.5, decimals=1)


def _write_csv2(frame, path, na_rows=()):
    """``frame`` as R's ``write.csv2(frame, path, row.names = FALSE)`` writes it: ``;``
    between cells, a decimal comma, a whole number without decimals (R writes 5, not 5,0),
    quoted names, NA for a missing cell. (R: ``write.csv2(iris, f, row.names = FALSE)``
    gives ``5,1;3,5;1,4;0,2;"setosa"`` and ``4,9;3;1,4;0,2;"setosa"``.)"""
    cells = frame.map(lambda v: format(v, "g").replace(".", ","))
    cells.loc[list(na_rows), "a"] = "NA"
    lines = [";".join(f'"{c}"' for c in frame.columns)]
    lines += [";".join(row) for row in cells.itertuples(index=False)]
    path.write_text("\n".join(lines) + "\n")


def test_write_csv2_numbers_with_whole_ones_need_the_decimal_option(tmp_path, capsys):
    # R's write.csv2 writes 5.0 as "5" and 5.1 as "5,1": read with --sep ';' alone, the
    # column held "distinct numbers and other texts", so every measurement became a text
    # state after a mere warning (iris: Sepal.Length with 35 states) and the model was
    # nonsense; a column of decimal commas alone was already an error naming --decimal ,
    frame = _measurements()
    assert (frame["a"] == frame["a"].round()).any()  # some cells written without a comma
    _write_csv2(frame, tmp_path / "d.csv")
    assert (tmp_path / "d.csv").read_text().splitlines()[0] == '"a";"b";"c"'
    status, _, err = run(["learn", tmp_path / "d.csv", "--sep", ";"], capsys)
    assert_one_line_error(status, err, "column 'a'", "decimal comma", "--decimal ,")
    assert_cli_learns_what_the_api_learns(run, capsys, tmp_path / "d.csv", frame,
                                          ["--sep", ";", "--decimal", ","], tmp_path)
    # with R's NA among them (airquality's Ozone): both options are named
    _write_csv2(frame, tmp_path / "na.csv", na_rows=[4, 40])
    status, _, err = run(["learn", tmp_path / "na.csv", "--sep", ";"], capsys)
    assert_one_line_error(status, err, "column 'a'", "decimal comma", "--decimal ,",
                          "--na-values NA")


@pytest.mark.parametrize("cells, sep, decimal, comma", [
    (["950", "4,421", "12,000", "1,234"], ",", ".", True),   # Excel, "1,234" quoted
    (["950", "4,421", "12,000", "1,234,567"], ",", ".", False),
    (["4,785,509", "5,094,572", "1,000,000"], ",", ".", False),
    (["950,5", "1.552,5", "6.466,6", "12.000"], ";", ",", False),  # European, --decimal ,
    (["950,5", "1\u00a0552,5", "6\u00a0466,6"], ";", ",", False),  # French: a no-break space
])
def test_thousands_separators_are_refused_naming_them(cells, sep, decimal, comma, tmp_path, capsys):
    # numbers written with thousands separators ("4,421", quoted in a comma-separated file):
    # read as text, every amount became a state (with a warning that suggested --decimal ,,
    # which would read 4,421 as 4.421), or, when every cell had a separator, a discrete
    # column with a state per amount without a word about the separators
    rng = np.random.default_rng(0)
    column = [str(c) for c in rng.choice(cells, 60)]
    group = rng.choice(["x", "y"], 60)
    def field(text):
        return f'"{text}"' if sep in text else text
    (tmp_path / "d.csv").write_text(
        f"income{sep}g\n" + "".join(f"{field(c)}{sep}{g}\n" for c, g in zip(column, group)))
    group = "," if decimal == "." else "\u00a0" if "\u00a0" in "".join(cells) else "."
    assert pd.read_csv(tmp_path / "d.csv", sep=sep, thousands=group, engine="python",
                       decimal=decimal)["income"].dtype.kind in "if"  # what the author meant
    status, _, err = run(["learn", tmp_path / "d.csv", "--sep", sep, "--decimal", decimal],
                         capsys)
    shown = next(c for c in column if group in c)  # the first with a separator
    assert_one_line_error(status, err, "column 'income'", "thousands separators", repr(shown),
                          "--categorical income")
    # "4,421" may also be a decimal comma: the option is named when every cell can be one
    assert ("--decimal ," in err) == comma, err


def test_excel_separator_line_is_refused_naming_the_separator(tmp_path, capsys):
    # Excel's "sep=;" first line: it was taken for the header, and the error spoke of line 2
    # having more values than "the 2 column names of the header"
    for line, option, end in (("sep=;", ["--sep", ";"], "\r\n"), ("sep=,", [], "\r\n"),
                              ('"sep=;"', [], "\r\n"), ("sep=,", [], "\r")):  # (old Mac: \r)
        (tmp_path / "d.csv").write_bytes(
            f"{line}{end}a;b{end}1,5;x{end}2;y{end}".encode() if ";" in line
            else f"{line}{end}a,b{end}u,x{end}v,y{end}".encode())
        status, _, err = run(["learn", tmp_path / "d.csv", *option], capsys)
        assert_one_line_error(status, err, "line 1", repr(line.strip('"')), "Excel",
                              "delete that line")
        sep = line.strip('"')[-1]
        assert (f"--sep {sep!r}" in err) == (sep != "," and not option), err


def test_a_header_with_one_name_suggests_the_separator_or_a_comment(tmp_path, capsys):
    # pandas' to_csv(sep=";", decimal=",") without --sep: the header is one name and the
    # rows (5,1;3,5;...) have more fields; the error asked "is a name missing from the
    # header?" without naming --sep. A comment line above the header did the same
    (tmp_path / "semi.csv").write_text("a;b;c\n5,1;3,5;x\n4,9;3,0;y\n")
    status, _, err = run(["learn", tmp_path / "semi.csv"], capsys)
    assert_one_line_error(status, err, "line 2", "Use --sep ';'")
    (tmp_path / "comment.csv").write_text("# exported by X\na,b\nu,x\nv,y\n")
    status, _, err = run(["learn", tmp_path / "comment.csv"], capsys)
    assert_one_line_error(status, err, "line 2", "line 1 a comment", "delete")
    # a comment with as many fields as the rows is read as the header (as pandas and R's
    # read.csv do; its header line becomes a data row): a warning names it
    (tmp_path / "comment.csv").write_text("# exported by X, 2024\na,b\nu,x\nv,y\n")
    status, _, err = run(["learn", tmp_path / "comment.csv", "--method", "chow_liu"], capsys)
    assert status == 0, err
    assert err.startswith("skbn: warning:") and "'# exported by X'" in err and "comment" in err
    # a column named "# of children" is a name like any other
    (tmp_path / "named.csv").write_text("# of children,b\n1,x\n2,y\n1,y\n2,x\n")
    status, _, err = run(["learn", tmp_path / "named.csv", "--method", "chow_liu"], capsys)
    assert status == 0 and "comment" not in err, err


def test_quoted_csv2_without_sep_suggests_the_separator(tmp_path, capsys):
    # R's write.csv2 read without --sep ';': its quoted names ("a";"b") broke the quote rules
    # and the error listed the quotes, never the separator
    _write_csv2(_measurements().head(20), tmp_path / "d.csv")
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "line 1", "Use --sep ';'")


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_write_table_row_names_are_named(sep, tmp_path, capsys):
    # R's write.table(x, f) (and sep = "\t") writes row names with no name in the header:
    # every row has one field more than the header. R's read.table takes them for row
    # names; the error asked "is a name missing from the header?"
    text = sep.join(['"a"', '"b"']) + "\n" + "".join(
        sep.join([f'"{k}"', str(k % 3), f'"{"xy"[k % 2]}"']) + "\n" for k in range(1, 31))
    (tmp_path / "d.txt").write_text(text)
    status, _, err = run(["learn", tmp_path / "d.txt", "--sep", sep], capsys)
    assert_one_line_error(status, err, "line 2", "row names", "row.names = FALSE")
    # and without --sep: the quotes are right, the separator is named
    status, _, err = run(["learn", tmp_path / "d.txt"], capsys)
    assert_one_line_error(status, err, "line 1", "Use --sep " + ("' '" if sep == " " else "'tab'"))


def test_text_row_names_of_write_csv_are_named(tmp_path, capsys):
    # R's write.csv(mtcars, f): the row names (car models) under an empty name ""; the
    # error said only "column(s) [1] have no name in the header"
    text = '"","mpg","am"\n' + "".join(f'"car {k}",{20 + k % 5},{k % 2}\n' for k in range(30))
    (tmp_path / "d.csv").write_text(text)
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "column(s) [1] have no name", "'car 0', 'car 1'",
                          "row names", "row.names = FALSE")


def test_score_names_thousands_separators_in_a_continuous_column(tmp_path, capsys):
    # a continuous node scored on a file written with thousands separators: the error said
    # only "pass --decimal , to read decimal commas", which reads "4,421" as 4.421
    frame = _measurements() * 1000.5
    frame.to_csv(tmp_path / "train.csv", index=False)
    status, _, err = run(["learn", tmp_path / "train.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    (tmp_path / "test.csv").write_text('a,b,c\n"4,421",300,-200\n')
    status, _, err = run(["score", tmp_path / "m.json", tmp_path / "test.csv"], capsys)
    assert_one_line_error(status, err, "column 'a'", "'4,421'", "thousands separators",
                          "if ',' is the decimal mark")
    # weights: the same words
    (tmp_path / "w.csv").write_text('a,b,c,n\n4421,300,-200,"1,234"\n5000,300,-200,2\n')
    status, _, err = run(["score", tmp_path / "m.json", tmp_path / "w.csv", "--weights", "n"],
                         capsys)
    assert_one_line_error(status, err, "'1,234'", "thousands separators")


def test_latin1_file_names_the_line_of_the_first_non_utf8_byte(tmp_path, capsys):
    # a file saved as Latin-1 (Excel's "CSV" on Windows, R's fileEncoding = "latin1") with an
    # accent far down: the error said "byte 1", counted from the start of one of pandas'
    # buffers, not of the file
    rows = ["city,b"] + [f"x{k % 3},y{k % 2}" for k in range(300_000)]
    rows[250_000] = "Zürich,y1"
    (tmp_path / "d.csv").write_bytes(("\n".join(rows) + "\n").encode("latin-1"))
    offset = (tmp_path / "d.csv").read_bytes().index(b"\xfc")
    status, _, err = run(["learn", tmp_path / "d.csv"], capsys)
    assert_one_line_error(status, err, "not UTF-8", f"line 250001 (byte {offset})", "'ü'",
                          "CSV UTF-8")


def test_columns_aligned_with_runs_of_spaces_are_named(tmp_path, capsys):
    # a text table aligned with several spaces (as R's print or fixed-width exports write
    # it; R's read.table(sep = "") and pandas' sep=r"\s+" read it): with --sep ' ' two spaces
    # make an empty field, and the errors asked "is a name missing from the header?"
    (tmp_path / "rows.txt").write_text("a b c\n1  x  u\n2  y  v\n10 x  u\n")
    (tmp_path / "header.txt").write_text("  a   b\n  1   x\n  2   y\n 10   x\n")
    for path in ("rows.txt", "header.txt"):
        status, _, err = run(["learn", tmp_path / path, "--sep", " "], capsys)
        assert_one_line_error(status, err, "runs of spaces", "tr -s")


def test_query_evidence_hints_name_no_option_query_lacks(tmp_path, capsys):
    # `skbn query --evidence b=7,4` on a continuous node said "pass --decimal , to read
    # decimal commas", an option query does not have (the command line was then refused);
    # "b=NA" said "pass --na-values NA", which query does not have either
    frame = _measurements()
    frame.to_csv(tmp_path / "d.csv", index=False)
    status, _, err = run(["learn", tmp_path / "d.csv", "-o", tmp_path / "m.json"], capsys)
    assert status == 0, err
    for value, fragment in (("7,4", "write it with a decimal point ('7.4')"),
                            ("NA", "leave it out of --evidence")):
        status, _, err = run(["query", tmp_path / "m.json", "--target", "a", "--evidence",
                              f"b={value}"], capsys)
        assert_one_line_error(status, err, f"--evidence b={value}", fragment)
        assert "--decimal" not in err and "--na-values" not in err


def test_a_header_of_decimal_numbers_warns_that_the_file_may_have_none(tmp_path, capsys):
    # statsmodels 0.15.0's interest_inflation/E6_jmulti.csv (JMulTi's format: no header line,
    # values separated by one space): its first row "-0.00313258 0.083" was read as the
    # column names without a word, so the columns were named '-0.00313258' and '0.083' and
    # that row left the data (106 of its 107 rows learned from), as pandas and R's
    # read.csv do silently. A name like 0.083 is no column name: a warning says so
    rows = ["-0.00313258 0.083", "0.0188713 0.083", "0.0248036 0.087", "0.0215 0.086",
            "0.0102 0.081", "-0.0031 0.079"]
    (tmp_path / "E6.txt").write_text("\n".join(rows) + "\n")
    status, out, err = run(["learn", tmp_path / "E6.txt", "--sep", " "], capsys)
    assert status == 0, err
    assert err.startswith("skbn: warning:") and err.count("\n") == 1, err
    assert "'-0.00313258', '0.083'" in err and "no header line" in err, err
    assert "5 rows" in out  # the first row is still the header: the warning says so
    # whole numbers as names (years of a wide table, column numbers) are plausible names
    (tmp_path / "years.csv").write_text("1960,1961\n4.8,4.6\n4.1,4.0\n3.9,3.5\n")
    status, _, err = run(["learn", tmp_path / "years.csv"], capsys)
    assert status == 0 and "header" not in err, err


def test_an_error_names_a_quoted_column_in_the_command_line_s_words(tmp_path, capsys):
    # statsmodels 0.15.0's anes96.csv and spector.csv quote their names with single quotes
    # ('popul'\t'TVnews'...), which stay part of the names. The refusal of a many-valued
    # whole-number column then named the Python parameter, column_types={"'popul'":
    # 'continuous'}, instead of --continuous: its rewriting matched only names that Python
    # writes between single quotes
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"'popul'": rng.integers(0, 400, 200), "'vote'": rng.integers(0, 2, 200)})
    frame.to_csv(tmp_path / "anes.csv", sep="\t", index=False)
    status, _, err = run(["learn", tmp_path / "anes.csv", "--sep", "tab"], capsys)
    assert_one_line_error(status, err, "--continuous \"'popul'\"", "--categorical")
    assert "column_types" not in err, err
    status, _, err = run(["learn", tmp_path / "anes.csv", "--sep", "tab", "--continuous", "'popul'"],
                         capsys)
    assert status == 0, err
