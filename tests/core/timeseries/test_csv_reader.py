"""read_series on good and broken files, written out in the open, and the samples.

Every broken file must raise ``ac.InputError`` with a message a non-programmer
can act on; nothing else may escape, whatever the bytes.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import attention_core as ac
from attention_core.boundary import limits

# --- Good files ----------------------------------------------------------------


def test_comma_file_with_a_date_column_uses_the_dates_as_index() -> None:
    frame = ac.read_series(b"date,open,close\n2024-01-01,1.5,2\n2024-01-02,3,4\n2024-01-03,5,6\n")
    assert list(frame.columns) == ["open", "close"]
    assert isinstance(frame.index, pd.DatetimeIndex)
    assert frame.index.name == "date"
    assert frame["open"].tolist() == [1.5, 3.0, 5.0]
    report = ac.series_report(frame)
    assert (report.delimiter, report.has_header, report.time_columns) == (",", True, ("date",))
    assert report.time_kind == "dates"
    assert report.dropped == () and report.notes == ()


def test_semicolon_file_with_decimal_commas_and_day_first_dates() -> None:
    frame = ac.read_series(
        b"Datum;Wert;Menge\n01.02.2024;1,5;2\n02.02.2024;3,25;4\n13.02.2024;5;6\n"
    )
    assert ac.series_report(frame).delimiter == ";"
    assert frame["Wert"].tolist() == [1.5, 3.25, 5.0]
    assert frame.index[2] == pd.Timestamp("2024-02-13")


def test_tab_separated_file() -> None:
    frame = ac.read_series(b"a\tb\n1\t2\n3\t4\n5\t6\n")
    assert ac.series_report(frame).delimiter == "\t"
    assert frame.to_numpy().tolist() == [[1, 2], [3, 4], [5, 6]]


def test_file_without_header_gets_numbered_column_names() -> None:
    frame = ac.read_series(b"1,2\n3,4\n5,6\n")
    assert list(frame.columns) == ["column 1", "column 2"]
    assert len(frame) == 3
    assert ac.series_report(frame).has_header is False


def test_utf8_byte_order_mark_is_not_part_of_the_first_name() -> None:
    frame = ac.read_series("\ufeffprice,volume\n1,2\n3,4\n".encode())
    assert list(frame.columns) == ["price", "volume"]
    assert ac.series_report(frame).encoding == "UTF-8 with BOM"


def test_latin1_text_is_decoded() -> None:
    frame = ac.read_series("température;débit\n1;2\n3;4\n".encode("latin-1"))
    assert list(frame.columns) == ["température", "débit"]
    assert "Latin-1" in ac.series_report(frame).encoding


def test_utf16_with_byte_order_mark_is_decoded() -> None:
    frame = ac.read_series("a,b\n1,2\n3,4\n".encode("utf-16"))
    assert frame.to_numpy().tolist() == [[1, 2], [3, 4]]
    assert ac.series_report(frame).encoding == "UTF-16"


def test_text_column_is_dropped_with_its_reason() -> None:
    frame = ac.read_series(b"value,comment\n1,good\n2,bad\n3,ok\n")
    assert list(frame.columns) == ["value"]
    assert ac.series_report(frame).dropped == (("comment", "text, not numbers (e.g. 'good')"),)


def test_missing_values_are_forward_filled_with_a_note() -> None:
    frame = ac.read_series(b"a,b\n,1\n2,\n3,NA\n4,5\n")
    assert frame["a"].tolist() == [2.0, 3.0, 4.0]  # the leading gap is dropped
    assert frame["b"].tolist() == [1.0, 1.0, 5.0]
    notes = " ".join(ac.series_report(frame).notes)
    assert "3 missing values were filled" in notes
    assert "first 1 rows" in notes


def test_unsorted_dates_are_sorted_with_a_note() -> None:
    frame = ac.read_series(b"day,x\n2024-01-03,3\n2024-01-01,1\n2024-01-02,2\n")
    assert frame["x"].tolist() == [1.0, 2.0, 3.0]
    assert "sorted" in " ".join(ac.series_report(frame).notes)


def test_a_few_non_numbers_in_a_numeric_column_count_as_missing() -> None:
    rows = "".join(f"{i}\n" for i in range(9))
    frame = ac.read_series(f"x\n{rows}oops\n".encode())
    assert frame["x"].tolist()[-1] == 8.0
    assert "not numbers (e.g. 'oops')" in " ".join(ac.series_report(frame).notes)


def test_path_and_file_object_sources(tmp_path) -> None:
    path = tmp_path / "series.csv"
    path.write_bytes(b"x,y\n1,2\n3,4\n")
    assert ac.read_series(path).shape == (2, 2)
    assert ac.read_series(str(path)).shape == (2, 2)
    assert ac.read_series(io.BytesIO(b"x,y\n1,2\n3,4\n")).shape == (2, 2)


def test_report_survives_pickling_as_streamlit_caches_do() -> None:
    import pickle

    frame = pickle.loads(pickle.dumps(ac.read_series(b"v,t\n1,a\n2,b\n")))
    assert ac.series_report(frame).dropped[0][0] == "t"


# --- Broken files: each one an InputError that says what is wrong -------------

BIG_ROW = ",".join(["1"] * 10_000) + "\n"
BROKEN = {
    "empty": (b"", ["empty"]),
    "whitespace only": (b"  \n\t\n  \n", ["empty"]),
    "PNG image": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64), ["PNG", "CSV"]),
    "NUL bytes": (b"a,b\n1,\x002\n", ["NUL", "CSV"]),
    "xlsx": (b"PK\x03\x04" + bytes(40), ["Excel", "CSV"]),
    "one row": (b"a,b\n1,2\n", ["1 usable row", "at least 2"]),
    "one column of text": (b"name\nanna\nbob\ncarl\n", ["No column of numbers", "name"]),
    "all text": (b"a,b\nx,y\nz,w\n", ["No column of numbers"]),
    "header only": (b"a,b,c\n", ["usable row"]),
    "infinity": (b"a\n1\ninf\n3\n", ["infinite", "'a'", "row 2"]),
    "1e400": (b"a,b\n1,2\n1e400,3\n", ["too large", "row 2"]),
    "huge but finite": (b"a\n1\n1e300\n", ["larger than", "rescale"]),
    "10 000 columns": ((BIG_ROW * 3).encode(), ["10000 columns", "limit is 50"]),
    "over 5 MB": (b"a\n" + b"1\n" * 2_700_000, ["5.0 MB", "limit"]),
    "over 100 000 rows": (b"a\n" + b"1\n" * 100_001, ["100,000 rows"]),
    "UTF-16 without BOM": ("a,b\n1,2\n".encode("utf-16-le"), ["UTF-16", "UTF-8"]),
    "ragged rows": (b"a,b\n1,2\n3,4,5\n", ["same number of values"]),
    "unclosed quote": (b'a,b\n"1,2\n3,4\n', ["could not be read"]),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_file_raises_input_error_saying_what_to_do(name: str) -> None:
    data, words = BROKEN[name]
    started = time.perf_counter()
    with pytest.raises(ac.InputError) as caught:
        ac.read_series(data)
    message = str(caught.value)
    for word in words:
        assert word in message, message
    assert time.perf_counter() - started < 2.0


def test_missing_path_is_an_input_error(tmp_path) -> None:
    with pytest.raises(ac.InputError, match="cannot be opened"):
        ac.read_series(tmp_path / "nope.csv")


def test_oversized_path_is_refused_before_reading(tmp_path) -> None:
    path = tmp_path / "big.csv"
    with path.open("wb") as handle:
        handle.truncate(limits.MAX_UPLOAD_BYTES + 1)  # sparse: nothing to read anyway
    with pytest.raises(ac.InputError, match="larger than the limit"):
        ac.read_series(path)


@given(st.binary(max_size=400))
def test_any_bytes_give_a_frame_or_an_input_error(data: bytes) -> None:
    try:
        frame = ac.read_series(data)
    except ac.InputError as error:
        assert str(error)
        return
    assert len(frame) >= 2
    assert np.isfinite(frame.to_numpy()).all()


@given(
    st.lists(
        st.lists(
            st.sampled_from(
                ["1", "-2.5", "", "x", "1e999", "2024-01-01", '"', "'", "n/a", "1974Q1", "1700"]
            ),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([",", ";", "\t", " "]),
)
def test_any_small_table_gives_a_frame_or_an_input_error(rows: list[list[str]], sep: str) -> None:
    data = "\n".join(sep.join(row) for row in rows).encode()
    try:
        frame = ac.read_series(data)
    except ac.InputError:
        return
    assert frame.dtypes.map(lambda dtype: dtype == np.float64).all()
    assert np.isfinite(frame.to_numpy()).all()


# --- Built-in samples ----------------------------------------------------------


def test_seasonal_sample_repeats_every_seven_days_up_to_noise() -> None:
    frame = ac.seasonal_series()
    assert frame.shape == (730, 1)
    sales = frame["sales"].to_numpy()
    week_ago = np.abs(sales[7:] - sales[:-7]).mean()
    day_ago = np.abs(sales[1:] - sales[:-1]).mean()
    assert week_ago < 0.5 < day_ago
    assert ac.seasonal_series().equals(frame)  # seeded


def test_synthetic_ohlcv_has_five_consistent_features() -> None:
    frame = ac.synthetic_ohlcv()
    assert list(frame.columns) == ["open", "high", "low", "close", "volume"]
    assert (frame["high"] >= frame[["open", "close"]].max(axis=1)).all()
    assert (frame["low"] <= frame[["open", "close"]].min(axis=1)).all()
    assert (frame["volume"] > 0).all()


def test_plotly_stock_sample_is_bundled_and_reads_through_read_series() -> None:
    import plotly.data

    frame = ac.read_series(plotly.data.stocks().to_csv(index=False).encode())
    assert list(frame.columns) == ["GOOG", "AAPL", "AMZN", "FB", "NFLX", "MSFT"]
    assert isinstance(frame.index, pd.DatetimeIndex) and len(frame) == 105


# --- Windows, scaling and attention over a window ---------------------------------


def test_scalers_map_training_rows_to_known_ranges_and_back() -> None:
    values = np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]])
    zscore = ac.fit_scaler(values, "zscore")
    np.testing.assert_allclose(zscore.transform(values)[:, 0], [-1.224744871, 0, 1.224744871])
    assert zscore.transform(values)[:, 1].tolist() == [0.0, 0.0, 0.0]  # constant: shifted only
    minmax = ac.fit_scaler(values, "minmax")
    assert minmax.transform(values)[:, 0].tolist() == [0.0, 0.5, 1.0]
    assert ac.fit_scaler(values, "none").transform(values).tolist() == values.tolist()
    np.testing.assert_allclose(zscore.inverse(zscore.transform(values)), values)


def test_dataset_windows_forecast_the_next_row_and_validate_on_the_most_recent() -> None:
    frame = pd.DataFrame({"x": np.arange(30.0), "y": np.arange(30.0) * 10})
    dataset = ac.prepare_dataset(frame, ["x"], "y", window=5, scaling="none")
    assert dataset.train_ends[0] == 4 and dataset.val_ends[-1] == 28  # row 29 is the last target
    assert len(dataset.val_ends) == 5 and dataset.train_ends[-1] + 1 == dataset.val_ends[0]
    windows = ac.windows_at(dataset.features, dataset.val_ends[-1:], 5)
    assert windows[0, :, 0].tolist() == [24, 25, 26, 27, 28]
    assert dataset.target[dataset.val_ends[-1] + 1] == 290


def test_scaler_never_sees_the_validation_rows() -> None:
    values = np.arange(40.0)
    values[-5:] = 1e6  # a wild validation period must not move the training scale
    frame = pd.DataFrame({"x": values})
    dataset = ac.prepare_dataset(frame, ["x"], "x", window=4, scaling="minmax")
    assert dataset.feature_scaler.scale[0] < 40


def test_window_longer_than_the_series_says_what_to_change() -> None:
    with pytest.raises(ac.InputError, match="Choose a shorter window"):
        ac.check_window(20, 30)
    with pytest.raises(ac.InputError, match="needs at least 40"):
        ac.check_window(35, 30, training=True)
    assert ac.check_window(30, 30) == 30


def test_series_attention_embeds_then_runs_the_cores_causal_attention() -> None:
    x = np.random.default_rng(0).standard_normal((6, 3))
    config = ac.AttentionConfig(d_model=8, n_heads=2, positional="learned", mask="causal", seed=4)
    result = ac.series_attention(x, config, "tanh")
    np.testing.assert_allclose(result.embedded, np.tanh(x @ result.embedding.w))
    direct = ac.run_attention(result.embedded, config, mask=ac.causal_mask(6))
    np.testing.assert_array_equal(result.run.trace.weights, direct.trace.weights)
    assert np.all(np.triu(result.run.trace.weights, k=1) == 0)
    same_seed = ac.series_attention(x, config, "tanh")
    np.testing.assert_array_equal(same_seed.embedding.w, result.embedding.w)


def test_unknown_activation_names_the_choices() -> None:
    with pytest.raises(ac.InputError, match="relu, tanh, identity, gelu"):
        ac.init_feature_embedding(2, 4, "sigmoid")
