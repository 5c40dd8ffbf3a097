# The `L`, `LW` and `#` syntax of cronsim 2.9 (through local-data-platform 0.1.3): the fires of
# expressions that use it, DST days in Europe/Paris and America/New_York included, in the shape
# of reference_fires.json; and the expressions the Python tool refuses, with its message.
# python gen_reference_cron_syntax.py > reference_cron_syntax.json
import datetime as dt, json
from zoneinfo import ZoneInfo
from local_data_platform.exceptions import ConfigError
from local_data_platform.orchestration import schedule as S, windows as W
U=dt.timezone.utc
def fmt(t): return None if t is None else t.astimezone(U).strftime('%Y-%m-%dT%H:%M:%SZ')
def P(s): return dt.datetime.fromisoformat(s.replace('Z','+00:00'))
fires=[]
cases=[# L in day of month, LW (the last weekday of the month), and cronsim's `L/n` (read as L)
       ("0 2 L * *","Europe/Paris","2026-01-15T00:00:00Z",8),
       ("0 2 l * *","UTC","2027-12-15T00:00:00Z",8),
       ("0 2 LW * *","UTC","2026-01-01T00:00:00Z",8),
       ("0 2 1,L * *","UTC","2026-01-01T00:00:00Z",8),
       ("0 2 L,LW * *","UTC","2026-01-01T00:00:00Z",8),
       ("0 2 L/2 * *","UTC","2026-01-01T00:00:00Z",4),
       ("0 2 LW/3 * *","UTC","2026-01-01T00:00:00Z",4),
       ("0 12 L 2 *","UTC","2026-01-01T00:00:00Z",5),
       # both day fields restricted: either matches; one starts with `*`: both must
       ("0 2 L * 5","UTC","2026-01-01T00:00:00Z",8),
       ("0 2 L * */3","UTC","2026-01-01T00:00:00Z",8),
       ("0 9 */2 * 5L","UTC","2026-01-01T00:00:00Z",8),
       ("0 9 1-3 * 5L","UTC","2026-01-01T00:00:00Z",8),
       # nL: the last given weekday of the month; 0L and 7L are Sunday
       ("0 9 * * 5L","Europe/Paris","2026-01-01T00:00:00Z",8),
       ("0 9 * * 7L","UTC","2026-01-01T00:00:00Z",4),
       ("0 9 * * 0l","UTC","2026-01-01T00:00:00Z",4),
       ("0 9 * * 5L,1","UTC","2026-01-01T00:00:00Z",8),
       # n#k: the k-th given weekday of the month
       ("0 9 * * 1#2","America/New_York","2026-01-01T00:00:00Z",8),
       ("0 9 * * mon#2,FRI#1","UTC","2026-01-01T00:00:00Z",8),
       ("0 9 * * 1#5","UTC","2026-01-01T00:00:00Z",8),
       ("0 9 * * 7#1,0#3","UTC","2026-01-01T00:00:00Z",8),
       ("0 9 * * 1#02","UTC","2026-01-01T00:00:00Z",3),
       ("0 0 * 2 1#5","UTC","2026-01-01T00:00:00Z",3),
       ("0 9 15 * 1#2","UTC","2026-01-01T00:00:00Z",8),
       # DST: the last Sunday of March / October is the clock change in Paris, the second
       # Sunday of March / the first of November in New York
       ("30 2 * 3 0L","Europe/Paris","2026-01-01T00:00:00Z",4),
       ("0,30 2 * 3 SUN#5","Europe/Paris","2026-03-01T00:00:00Z",4),
       ("30 2 * 10 7L","Europe/Paris","2026-10-01T00:00:00Z",4),
       ("15 1-3 * 10 0L","Europe/Paris","2026-10-24T12:00:00Z",8),
       ("*/30 * * 3 0L","Europe/Paris","2026-03-29T00:00:00Z",8),
       ("*/30 * * 10 0L","Europe/Paris","2026-10-24T23:00:00Z",8),
       ("0 * * 10 0L","Europe/Paris","2026-10-24T23:30:00Z",8),
       ("30 2 * 3 0#2","America/New_York","2026-03-01T00:00:00Z",4),
       ("30 1 * 11 SUN#1","America/New_York","2026-10-01T00:00:00Z",4),
       ("*/20 1-2 * 11 0#1","America/New_York","2026-11-01T04:00:00Z",8),
       ("*/30 * * 3 0#2","America/New_York","2026-03-08T06:00:00Z",8),
       ("0 2 L * *","America/New_York","2026-02-27T12:00:00Z",8),
       ]
for expr,tz,start,count in cases:
    z = U if tz=="UTC" else ZoneInfo(tz)
    sch=W.parse_schedule(expr)
    it=S.fires_after(sch,z,P(start))
    after=[fmt(next(it)) for _ in range(count)]
    before=fmt(S.fire_at_or_before(sch,z,P(start)))
    fires.append({"cron":expr,"tz":tz,"at":start,"after":after,"at_or_before":before})
refused=[]
for expr in ["0 2 15W * *","0 2 W * *","0 2 LW5 * *","0 2 L-1 * *","0 2 1-L * *","0 2 L5 * *",
             "0 2 1#2 * *","0 2 * L *","0 2 * 1#2 *","L 2 * * *","0 L * * *","0 2 * * L",
             "0 2 * * 8L","0 2 * * FRIL","0 2 * * 1-5L","0 2 * * 5L/2","0 2 * * L5","0 2 * * 5#L",
             "0 2 * * 1W","0 2 * * 1#0","0 2 * * 1#6","0 2 * * 8#1","0 2 * * 1-2#2","0 2 * * MON-FRI#2",
             "0 2 * * 1#2/2","0 2 * * #2","0 2 * * 1#","0 2 * * 1#2#3","0 2 * * 1#1-2","0 2 * * 1#-1",
             "0 2 * * +1","0 2 * * 1/2#2"]:
    try:
        W.parse_schedule(expr)
        raise SystemExit(f"{expr!r} was accepted")
    except ConfigError as exc:
        refused.append({"cron":expr,"error":str(exc)})
print(json.dumps({"fires":fires,"refused":refused},indent=1))
