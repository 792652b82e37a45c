"""The time-series page in a real browser: upload a CSV and see attention over its days."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .helpers import EXCEPTION, screenshot, wait_ready

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
    title = page.locator(".gtitle", has_text="Attention weights of head 1")
    expect(title).to_be_visible(timeout=30_000)
    expect(page.locator(".stPlotlyChart .heatmaplayer").first).to_be_attached()
    expect(page.get_by_text("Window: 2024-01-18 to 2024-01-31 (14 steps).")).to_be_visible()
    screenshot(page, "time_series")
    page.get_by_test_id("stRadio").filter(has_text="Head").get_by_text("2", exact=True).click()
    wait_ready(page)
    expect(page.locator(".gtitle", has_text="Attention weights of head 2")).to_be_visible()
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
