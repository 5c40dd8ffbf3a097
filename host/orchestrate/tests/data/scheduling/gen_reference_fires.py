import datetime as dt, json
from zoneinfo import ZoneInfo
from local_data_platform.orchestration import schedule as S, windows as W
U=dt.timezone.utc
def fmt(t): return None if t is None else t.astimezone(U).strftime('%Y-%m-%dT%H:%M:%SZ')
def P(s): return dt.datetime.fromisoformat(s.replace('Z','+00:00'))
out=[]
cases=[("30 2 * * *","Europe/Paris","2026-03-28T12:00:00Z"),
       ("30 2 * * *","Europe/Paris","2026-10-24T12:00:00Z"),
       ("0,30 2 * * *","Europe/Paris","2026-03-28T12:00:00Z"),
       ("*/30 * * * *","Europe/Paris","2026-10-24T23:00:00Z"),
       ("*/30 * * * *","Europe/Paris","2026-03-29T00:00:00Z"),
       ("0 * * * *","Europe/Paris","2026-10-24T23:30:00Z"),
       ("15 1-3 * * *","Europe/Paris","2026-03-28T23:30:00Z"),
       ("15 1-3 * * *","Europe/Paris","2026-10-24T23:30:00Z"),
       ("0 0 1 * 1","UTC","2026-01-01T00:00:00Z"),
       ("0 0 */10 * 1","UTC","2026-01-01T00:00:00Z"),
       ("0 12 * JAN-MAR sun","UTC","2026-01-01T00:00:00Z"),
       ("5 2 * * *","Europe/Paris","2026-08-05T00:10:00Z"),
       ("0 0 29 2 *","UTC","2026-03-01T00:00:00Z"),
       ("*/20 9-10 * * mon-fri","America/New_York","2026-03-07T12:00:00Z"),
       ]
for expr,tz,start in cases:
    z = U if tz=="UTC" else ZoneInfo(tz)
    sch=W.parse_schedule(expr)
    fires=[]
    it=S.fires_after(sch,z,P(start))
    for i in range(8): fires.append(fmt(next(it)))
    before=fmt(S.fire_at_or_before(sch,z,P(start)))
    out.append({"cron":expr,"tz":tz,"at":start,"after":fires,"at_or_before":before})
print(json.dumps(out,indent=1))
