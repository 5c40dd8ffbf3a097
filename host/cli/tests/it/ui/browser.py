"""Drives `ldp ui` in headless Chromium (Debian's chromium and chromium-driver, through Selenium)
and prints what it saw as one JSON document; the Rust test (tests/it/ui.rs) checks it.

    browser.py URL SCREENSHOTS_DIR

It opens the home page, a table's page (its snapshot chart, then the rows of an older
snapshot), runs a query in the SQL box and then one that writes; a screenshot of each step is
saved into SCREENSHOTS_DIR.
"""

import json
import os
import shutil
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

INSTALL = "apt-get install chromium chromium-driver; .venv/bin/pip install 'selenium==4.50.0'"


def driver():
    chromium = shutil.which("chromium")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        sys.exit(f"Chromium or its driver is missing; install them with: {INSTALL}")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1360,1000", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--lang=en-US", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)


def main():
    url, shots = sys.argv[1], sys.argv[2]
    os.makedirs(shots, exist_ok=True)
    seen = {}
    browser = driver()
    wait = WebDriverWait(browser, 30)

    def ready(route):
        wait.until(lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == route)

    def shot(name):
        browser.save_screenshot(os.path.join(shots, name))

    try:
        # Home: every table, the stale one and the blocked one flagged.
        browser.get(url)
        ready("/")
        rows = browser.find_elements(By.CSS_SELECTOR, "#tables tbody tr")
        seen["home"] = {
            row.get_attribute("data-table"): [b.text for b in row.find_elements(By.CSS_SELECTOR, "td.flags .badge")]
            for row in rows
        }
        seen["home_breached"] = browser.find_element(By.ID, "count-breached").text
        shot("home.png")

        # A table: its snapshot chart, then the rows of its first snapshot.
        browser.find_element(By.LINK_TEXT, "nyc.rides").click()
        ready("/table/nyc.rides")
        seen["chart_snapshots"] = len(browser.find_elements(By.CSS_SELECTOR, "#snapshot-chart rect.pick"))
        seen["chart_added_bars"] = len(browser.find_elements(By.CSS_SELECTOR, "#snapshot-chart rect.added"))
        seen["schema"] = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#schema tbody tr td:first-child")]
        seen["docs"] = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#schema tbody tr td:last-child")]
        seen["partitions"] = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#partitions tbody tr td:first-child")]
        seen["runs"] = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#runs tbody tr td:nth-child(2)")]
        seen["downstream"] = browser.find_element(By.ID, "downstream").text
        buttons = browser.find_elements(By.CSS_SELECTOR, "#snapshots button[data-snapshot]")
        oldest = buttons[-1]
        seen["oldest_snapshot"] = oldest.get_attribute("data-snapshot")
        oldest.click()
        wait.until(lambda b: b.find_elements(By.ID, "rows-total") or b.find_elements(By.CSS_SELECTOR, "#rows .error"))
        errors = browser.find_elements(By.CSS_SELECTOR, "#rows .error")
        if errors:
            sys.exit(f"the rows of snapshot {seen['oldest_snapshot']} did not load: {errors[0].text}")
        seen["rows_title"] = browser.find_element(By.ID, "rows-title").text
        seen["rows_total"] = browser.find_element(By.ID, "rows-total").text
        seen["rows_shown"] = len(browser.find_elements(By.CSS_SELECTOR, "#rows table tbody tr"))
        # The whole page: schema, lineage, partitions, runs and files below the rows.
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1360, min(int(height) + 140, 4000))
        browser.execute_script("window.scrollTo(0, 0)")
        shot("table.png")
        browser.set_window_size(1360, 1000)

        # The SQL box: a query gives rows and a chart; a statement that writes is refused.
        browser.find_element(By.ID, "nav-sql").click()
        ready("/sql")
        box = browser.find_element(By.ID, "sql")
        box.clear()
        box.send_keys("SELECT city, count(*) AS rides, round(avg(fare), 2) AS avg_fare FROM nyc.rides GROUP BY city ORDER BY city")
        browser.find_element(By.ID, "run").click()
        wait.until(ec.presence_of_element_located((By.ID, "result-summary")))
        seen["query_summary"] = browser.find_element(By.ID, "result-summary").text
        seen["query_rows"] = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
                              for tr in browser.find_elements(By.CSS_SELECTOR, "#output table tbody tr")]
        seen["query_chart_bars"] = len(browser.find_elements(By.CSS_SELECTOR, "#result-chart rect.bar"))
        shot("sql.png")
        box = browser.find_element(By.ID, "sql")
        box.clear()
        box.send_keys("DELETE FROM nyc.rides WHERE city = 'NYC'")
        browser.find_element(By.ID, "run").click()
        wait.until(ec.presence_of_element_located((By.ID, "error")))
        seen["write_refused"] = browser.find_element(By.ID, "error").text
        shot("sql-refused.png")
    finally:
        browser.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
