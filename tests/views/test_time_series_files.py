"""The time-series page on the layouts of classic public files: its caption says how the file
was read and where the time axis came from, and the calendar is neither target nor feature."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "time_series.py")
MONTHS = "JAN,FEB,MAR,APR,MAY,JUN,JUL,AUG,SEP,OCT,NOV,DEC"

# (file, the caption, the feature columns offered, the default target)
FILES = {
    "years": (
        '"YEAR","SUNACTIVITY"\n' + "".join(f"{1700 + n},{n % 11 * 7}.5\n" for n in range(40)),
        "Read as UTF-8, comma-separated, with a header row; time axis: years from column 'YEAR'.",
        ["SUNACTIVITY"],
        "SUNACTIVITY",
    ),
    "year and quarter": (
        "year,quarter,realgdp,cpi\n"
        + "".join(f"{1959 + q // 4},{q % 4 + 1},{2710 + q}.5,{q % 3}.5\n" for q in range(40)),
        "Read as UTF-8, comma-separated, with a header row; time axis: quarters from columns "
        "'year' and 'quarter'.",
        ["realgdp", "cpi"],
        "realgdp",
    ),
    "wide table": (
        f"YEAR,{MONTHS}\n"
        + "".join(
            f"{1950 + y}," + ",".join(f"{20 + m}.5" for m in range(12)) + "\n" for y in range(4)
        ),
        "Read as UTF-8, comma-separated, with a header row; time axis: months from column "
        "'YEAR'; a year per row and a column per month (JAN … DEC), read as one monthly "
        "series, 'value'.",
        ["value"],
        "value",
    ),
    "space-separated with row numbers": (
        "'OBS' 'GPA' 'TUCE'\n"
        + "".join(f"{n + 1} {2 + n % 9 / 10} {20 + n % 5}\n" for n in range(40)),
        "Read as UTF-8, space-separated, with a header row; time axis: row numbers from column "
        "'OBS'.",
        ["GPA", "TUCE"],
        "GPA",
    ),
    "constant and yes/no first": (
        "constant,sex,age\n" + "".join(f"1.0,{n % 2},{20 + n * 7 % 31}\n" for n in range(40)),
        "Read as UTF-8, comma-separated, with a header row.",
        ["constant", "sex", "age"],
        "age",
    ),
}


def shown(text: str) -> str:
    """Markdown text as the reader sees it (the page escapes user text)."""
    return text.replace("\\", "")


@pytest.mark.parametrize("name", FILES)
def test_the_caption_says_where_the_time_axis_came_from_and_the_calendar_is_no_column(
    name: str,
) -> None:
    data, caption, features, target = FILES[name]
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.query_params["ts_source"] = "upload"
    at.query_params["ts_length"] = "10"
    at.run()
    at.file_uploader(key="ts_upload").set_value(("file.csv", data.encode(), "text/csv"))
    at.run()
    assert not at.exception and not at.error
    assert shown(at.caption[0].value) == caption
    assert at.multiselect(key="ts_features").options == features
    assert at.selectbox(key="ts_target").value == target
