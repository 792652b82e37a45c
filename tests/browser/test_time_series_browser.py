"""The time-series page in a real browser: upload a CSV and see attention over its days."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from harness.series_files import real_series_dir
from tests.browser.helpers import EXCEPTION, screenshot, wait_ready

CSV = "date,sales,comment\n" + "".join(
    f"2024-01-{day:02d},{10 + (day % 7) * 0.5:.2f},note {day}\n" for day in range(1, 32)
)


def test_uploaded_csv_shows_the_attention_heatmap(page: Page, app_url: str) -> None:
    page.set_viewport_size({"width": 1400, "height": 3200})
    page.goto(f"{app_url}/time_series?ts_source=upload&ts_length=14")
    wait_ready(page)
    expect(page.get_by_role("heading", name="Time-series attention")).to_be_visible()
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
        files=[{"name": "shop.csv", "mimeType": "text/csv", "buffer": CSV.encode()}]
    )
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_text("Column 'comment' is left out")).to_be_visible()
    # the weights are a walkable matrix (the plotly figure with the series waits in an expander)
    weights = page.get_by_role("grid", name="Attention weights of head 1 (untrained)")
    expect(weights).to_be_visible(timeout=30_000)
    expect(weights).to_have_attribute("aria-rowcount", "15")  # 14 days and the header row
    # every head's grid, built once its expander is opened
    expect(page.locator(".stPlotlyChart .heatmaplayer")).to_have_count(0)
    page.get_by_text("All heads and the numbers").click()
    wait_ready(page)
    expect(page.locator(".stPlotlyChart .heatmaplayer").first).to_be_attached(timeout=30_000)
    expect(page.get_by_text("Window: 2024-01-18 to 2024-01-31 (14 steps).")).to_be_visible()
    screenshot(page, "time_series")
    page.get_by_test_id("stRadio").filter(has_text="Head").get_by_text("2", exact=True).click()
    wait_ready(page)
    expect(page.get_by_role("grid", name="Attention weights of head 2 (untrained)")).to_be_visible()
    expect(page.locator("[data-testid='stAlertContentError']")).to_have_count(0)


def test_broken_upload_shows_a_message_not_a_traceback(page: Page, app_url: str) -> None:
    page.goto(f"{app_url}/time_series?ts_source=upload")
    wait_ready(page)
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
        files=[{"name": "image.csv", "mimeType": "text/csv", "buffer": b"\x89PNG\r\n\x1a\n" * 8}]
    )
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_text("This is a PNG image, not a text table.")).to_be_visible()


def series_csv(columns: tuple[str, str]) -> bytes:
    rows = "".join(f"2024-01-{day:02d},{day % 7},{day}\n" for day in range(1, 32))
    return f"date,{columns[0]},{columns[1]}\n{rows}".encode()


def test_replacing_the_file_keeps_the_other_settings_in_the_link(page: Page, app_url: str) -> None:
    # Replacing a file passes through a run without one. At the end of every full run
    # Streamlit's QueryParams.remove_stale_bindings (streamlit/runtime/state/query_params.py,
    # called from SessionState after the script) deletes the URL parameter of every bound
    # widget that run did not draw; when the next upload's rerun is already queued, the
    # value is not written back. So the page draws these settings with or without data.
    settings = (
        "ts_length=14",
        "ts_scaling=min-max",
        "ts_act=tanh",
        "ts_head=2",
        "ts_train=true",
        "ts_steps=100",
    )
    page.set_viewport_size({"width": 1400, "height": 3200})
    page.goto(f"{app_url}/time_series?ts_source=upload&" + "&".join(settings))
    wait_ready(page)
    uploader = page.locator("[data-testid='stFileUploader'] input[type='file']")
    # Before the fix ts_head and ts_train dropped on every replacement and ts_length or
    # ts_scaling in about half: twelve replacements leave a regression no place to hide.
    for columns in (("apples", "bananas"), ("glaciers", "harbors"), ("comets", "dragons")) * 4:
        uploader.set_input_files(
            files=[{"name": "data.csv", "mimeType": "text/csv", "buffer": series_csv(columns)}]
        )
        wait_ready(page)
        expect(page.get_by_test_id("stMultiSelect").get_by_text(columns[1])).to_be_visible(
            timeout=30_000  # the upload request may still be on its way when the app looks idle
        )
        page.wait_for_timeout(500)  # a late URL change would land here
        wait_ready(page)
        missing = [setting for setting in settings if setting not in page.url]
        assert not missing, (columns, page.url)
    # Quick replacements: the next file arrives while the previous one's rerun still runs.
    for burst in range(4):
        for columns in (("apples", "bananas"), ("glaciers", "harbors"), ("comets", "dragons")):
            uploader.set_input_files(
                files=[{"name": "data.csv", "mimeType": "text/csv", "buffer": series_csv(columns)}]
            )
            page.wait_for_timeout(60 * burst)
        wait_ready(page)
        # Streamlit's uploader may settle on an earlier file of a burst (seen: the middle
        # one); what matters here is that some file is drawn and the link kept its settings.
        drawn = page.get_by_test_id("stMultiSelect").get_by_text(
            re.compile("^(bananas|harbors|dragons)$")
        )
        expect(drawn.first).to_be_visible(timeout=30_000)
        page.wait_for_timeout(500)
        wait_ready(page)
        missing = [setting for setting in settings if setting not in page.url]
        assert not missing, (burst, page.url)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_role("grid", name="Attention weights of head 2 (untrained)")).to_be_visible()


def test_sunspots_upload_shows_years_on_the_time_axis_and_trains(page: Page, app_url: str) -> None:
    # statsmodels' sunspots.csv ("YEAR","SUNACTIVITY"): the page used to forecast the calendar.
    sunspots = (real_series_dir() / "sunspots" / "sunspots.csv").read_bytes()
    page.set_viewport_size({"width": 1400, "height": 3200})
    page.goto(f"{app_url}/time_series?ts_source=upload&ts_length=11&ts_train=true&ts_steps=100")
    wait_ready(page)
    page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(
        files=[{"name": "sunspots.csv", "mimeType": "text/csv", "buffer": sunspots}]
    )
    wait_ready(page)
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_text("time axis: years from column 'YEAR'")).to_be_visible()
    target = page.get_by_role("combobox", name="Target (the column to forecast)")
    expect(target).to_have_value("SUNACTIVITY")
    features = page.get_by_test_id("stMultiSelect")
    expect(features).to_contain_text("SUNACTIVITY")
    expect(features).not_to_contain_text("YEAR")
    series = page.locator(".stPlotlyChart").filter(
        has=page.locator(".gtitle", has_text="The series")
    )
    expect(series).to_be_visible(timeout=30_000)
    ticks = series.locator(".xaxislayer-above text").all_text_contents()
    assert ticks and all(re.fullmatch(r"1[7-9]\d\d|20\d\d", tick) for tick in ticks), ticks
    page.get_by_role("button", name="Train the model").click()
    wait_ready(page, timeout=120_000)
    expect(page.locator(".gtitle", has_text="Forecasts on the validation days")).to_be_visible(
        timeout=120_000
    )
    expect(page.get_by_text("Model MAE")).to_be_visible()
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.locator("[data-testid='stAlertContentError']")).to_have_count(0)
    screenshot(page, "time_series_sunspots")
