import datetime as dt, json
from local_data_platform.orchestration import schedule as S, windows as W, backfills as B
from local_data_platform.orchestration.workflow import workflow_from_dict
U=dt.timezone.utc
def fmt(t): return None if t is None else t.astimezone(U).strftime('%Y-%m-%dT%H:%M:%SZ')
def span(p): return None if p is None else f"{fmt(p[0])}/{fmt(p[1])}"
def P(s): return S.parse_now(s)
def wf(meta):
    return workflow_from_dict({"kind":"Workflow","identifier":"w","metadata":meta,"tasks":[{"id":"a","maintain":{"config":"x.json"}}]}, base_dir="/tmp")
out={"due":[],"range":[]}
due_cases=[
 ({"schedule":"5 2 * * *","window":{"size":"day","timezone":"Europe/Paris"}},"2026-08-05T00:10:00Z",None),
 ({"schedule":"5 2 * * *","window":{"size":"day","timezone":"Europe/Paris"},"catchup":True,"start":"2026-08-01"},"2026-08-05T00:10:00Z",None),
 ({"schedule":"5 2 * * *","window":{"size":"day","timezone":"Europe/Paris"},"start":"2026-08-05"},"2026-08-05T00:10:00Z",None),
 ({"schedule":"0 */6 * * *","catchup":True,"start":"2026-08-01T00:00:00Z"},"2026-08-02T01:00:00Z",None),
 ({"schedule":"0 */6 * * *"},"2026-08-02T01:00:00Z",None),
 ({"schedule":"@hourly","window":{"timezone":"Europe/Paris","size":"hour"},"catchup":True,"start":"2026-10-25T01:00:00"},"2026-10-25T03:00:00Z",None),
 ({"schedule":"*/30 * * * *","window":{"timezone":"Europe/Paris","size":"hour"},"catchup":True,"start":"2026-10-25T01:00:00"},"2026-10-25T02:10:00Z",None),
 ({"schedule":"30 2 * * *","window":{"timezone":"Europe/Paris","size":"day"},"catchup":True,"start":"2026-03-27"},"2026-03-31T12:00:00Z",None),
 ({"schedule":"30 2 * * *","window":{"timezone":"Europe/Paris","size":"day"},"start":"2026-09-01"},"2026-08-05T00:10:00Z",None),
 ({"schedule":"@daily","catchup":True,"start":"2026-10-20"},"2026-10-23T00:00:00Z",None),
]
for meta,now,_ in due_cases:
    w=wf(meta); n=P(now)
    out["due"].append({"metadata":meta,"now":now,
      "latest":span(S.latest_window(w,n)),"due":[span(p) for p in S.due_windows(w,n)],
      "next_fire":fmt(S.next_fire(w,n)),
      "since_first":[span(p) for p in S.windows_since(w, P("2026-07-31T22:00:00Z") if "start" not in meta else S._scheduled(w)[3], n, 20)]})
def rng(meta,start,end,now,maxw=1000):
    w=wf(meta)
    try:
        size,zone,first,last=B._range(w,start,end,P(now))
        grid=list(W.iter_windows(first,last,size,w.timezone))
        if len(grid)>maxw: raise Exception(f"the range from {fmt(first)} to {fmt(last)} holds more than {maxw} windows of size {size}. Check the start and the end, or pass a larger max_windows (--max-windows)")
        return {"from":fmt(first),"to":fmt(last),"windows":[span(p) for p in grid]}
    except Exception as e: return {"error":str(e)}
paris={"schedule":"5 2 * * *","window":{"size":"day","timezone":"Europe/Paris"}}
cases=[(paris,"2026-08-01","2026-08-05","2026-08-05T00:10:00Z"),
 (paris,"2026-08-01",None,"2026-08-05T00:10:00Z"),
 (paris,"2026-08-01T10:00:00",None,"2026-08-05T00:10:00Z"),
 (paris,"2026-08-01","2026-08-01T22:00:00Z","2026-08-05T00:10:00Z"),
 (paris,"2026-08-01","2026-08-02T12:00:00+02:00","2026-08-05T00:10:00Z"),
 (paris,"2026-08-05",None,"2026-08-05T00:10:00Z"),
 (paris,"2026-08-05","2026-08-03","2026-08-05T00:10:00Z"),
 (paris,"2026-10-24","2026-10-27","2026-12-01T00:00:00Z"),
 (paris,"2026-03-28","2026-03-30","2026-12-01T00:00:00Z"),
 (paris,"yesterday",None,"2026-12-01T00:00:00Z"),
 (paris," ",None,"2026-12-01T00:00:00Z"),
 ({"schedule":"5 * * * *","window":{"size":"hour","timezone":"Europe/Paris"}},"2026-03-29T00:00:00","2026-03-29T04:00:00","2026-12-01T00:00:00Z"),
 ({"schedule":"5 * * * *","window":{"size":"hour","timezone":"Asia/Kolkata"}},"2026-08-01T00:00:00Z",None,"2026-08-01T02:00:00Z"),
 ({"schedule":"5 * * * *","window":{"size":"hour","timezone":"Asia/Kolkata"}},"2026-08-01T00:30:00Z",None,"2026-08-01T02:00:00Z"),
 ({"schedule":"*/15 * * * *","window":{"size":"15m"}},"2026-08-01T00:10:00Z",None,"2026-08-01T02:00:00Z"),
 ({"schedule":"*/15 * * * *","window":{"size":"15m"}},"2026-08-01T00:00:00Z","2026-08-01T01:00:00Z","2026-08-01T02:00:00Z"),
 ({"schedule":"0 */6 * * *"},"2026-08-01",None,"2026-08-01T02:00:00Z"),
 ({"schedule":"@daily"},"2026-08-01","2026-08-03","2026-08-01T02:00:00Z"),
]
for meta,s,e,now in cases:
    r=rng(meta,s,e,now); r.update({"metadata":meta,"from_arg":s,"to_arg":e,"now":now}); out["range"].append(r)
r=rng(paris,"2026-01-01","2026-08-01","2026-08-05T00:10:00Z",maxw=100); r.update({"metadata":paris,"from_arg":"2026-01-01","to_arg":"2026-08-01","now":"2026-08-05T00:10:00Z","max":100}); out["range"].append(r)
print(json.dumps(out,indent=1))
