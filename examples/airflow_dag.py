"""An Apache Airflow 3 DAG loading examples/workflows/daily_orders.json once per day (docs/airflow.md).

Copy it with examples/workflows into the DAGs folder of an Airflow that has the ldp wheel
installed, or try it on a copy of the examples (the run writes workflows/warehouse):

    cp -r examples /tmp/ldp-examples
    export AIRFLOW_HOME=/tmp/airflow-home AIRFLOW__CORE__LOAD_EXAMPLES=False \
      AIRFLOW__CORE__DAGS_FOLDER=/tmp/ldp-examples
    airflow db migrate
    airflow dags test daily_orders 2026-08-02   # loads the Paris day of 1 August

The config's window is a day in Europe/Paris, so the timetable's days are Paris days too: the run
for 1 August has the window 2026-07-31T22:00:00Z/2026-08-01T22:00:00Z and reads
drops/orders_2026-08-01.csv.
"""

from datetime import datetime, timedelta
from pathlib import Path

from airflow.sdk import DAG
from airflow.timetables.interval import CronDataIntervalTimetable

from ldp.airflow import LdpRunOperator

CONFIG = Path(__file__).resolve().parent / "workflows" / "daily_orders.json"

with DAG(
    "daily_orders",
    # A timetable, not the string "@daily": Airflow 3 gives a cron string's runs an empty data
    # interval, and the operator fails them.
    schedule=CronDataIntervalTimetable("@daily", timezone="Europe/Paris"),
    start_date=datetime(2026, 8, 1),
    catchup=False,
    tags=["ldp"],
) as dag:
    LdpRunOperator(
        task_id="orders",
        config=str(CONFIG),
        retries=2,  # a drop that lands late; a data gate or a bad config is not retried
        retry_delay=timedelta(minutes=5),
    )
