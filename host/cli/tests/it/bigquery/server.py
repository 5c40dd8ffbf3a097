"""A local server that answers BigQuery's documented REST calls, for the BigQuery source's tests.

    python server.py DIR

It makes a service-account key (a new RSA key; `DIR/key.json`, its `token_uri` this server) and
answers, on 127.0.0.1 at a free port (printed first on stdout):

- `POST /token`: the OAuth JWT-bearer grant. The assertion's RS256 signature is checked with the
  key's public half, and its claims (`iss`, `aud`, `scope`, `exp`); the answer is an access token.
- `POST /bigquery/v2/projects/{project}/queries` (jobs.query): the bearer token is checked; the
  job is not complete yet (the client must wait). A query holding `FAIL` gets the API's 400.
- `GET /bigquery/v2/projects/{project}/queries/{jobId}` (jobs.getQueryResults): not complete on
  the first call, then the schema and the rows, two rows a page (`pageToken`), as the API may
  give fewer rows than `maxResults`.

Every request is logged to `DIR/requests.jsonl` (method, path, authorization). It stops when
stdin closes.
"""

import base64
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

TOKEN = "ya29.local-test-token"
PROJECT = "ldp-test"
EMAIL = "loader@ldp-test.iam.gserviceaccount.com"
FIELDS = [
    {"name": "id", "type": "INTEGER", "mode": "REQUIRED"},
    {"name": "name", "type": "STRING", "mode": "NULLABLE"},
    {"name": "fare", "type": "FLOAT", "mode": "NULLABLE"},
    {"name": "paid", "type": "BOOLEAN", "mode": "NULLABLE"},
    {"name": "ts", "type": "TIMESTAMP", "mode": "NULLABLE"},
    {"name": "day", "type": "DATE", "mode": "NULLABLE"},
    {"name": "local", "type": "DATETIME", "mode": "NULLABLE"},
    {"name": "at", "type": "TIME", "mode": "NULLABLE"},
    {"name": "amount", "type": "NUMERIC", "mode": "NULLABLE"},
    {"name": "raw", "type": "BYTES", "mode": "NULLABLE"},
]
ROWS = [
    ["1", "Ada", "12.5", "true", "1704070478000000", "2024-01-01", "2024-01-01T00:54:38",
     "00:54:38", "12.50", base64.b64encode(b"hi").decode()],
    ["2", "Grace", "-0.25", "false", "1704160800123456", "2024-01-02", "2024-01-02T02:00:00.5",
     "23:59:59.999999", "-3.000000001", ""],
    ["3", None, None, None, None, None, None, None, None, None],
    ["4", "Zoë, \"quoted\"", "1e3", "true", "0", "1969-12-31", "1969-12-31T23:59:59",
     "00:00:00", "0", base64.b64encode(b"ok").decode()],
    ["5", "", "7", "false", "1", "2000-02-29", "2000-02-29T12:00:00", "12:00:00",
     "99999999999999999999999999999.999999999", None],
]
PAGE = 2


def b64url(data):
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


class Handler(BaseHTTPRequestHandler):
    server_version = "bigquery-test"

    def log_message(self, *args):
        pass

    def send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log(self):
        with open(self.server.dir + "/requests.jsonl", "a") as log:
            log.write(json.dumps({"method": self.command, "path": self.path,
                                  "authorization": self.headers.get("authorization")}) + "\n")

    def body(self):
        return self.rfile.read(int(self.headers.get("content-length") or 0))

    def authorized(self):
        if self.headers.get("authorization") == "Bearer " + TOKEN:
            return True
        self.send(401, {"error": {"code": 401, "status": "UNAUTHENTICATED",
                                  "message": "Request had invalid authentication credentials."}})
        return False

    def do_POST(self):
        self.log()
        if self.path == "/token":
            return self.token(urllib.parse.parse_qs(self.body().decode()))
        prefix = f"/bigquery/v2/projects/{PROJECT}/queries"
        if self.path != prefix:
            return self.send(404, {"error": {"code": 404, "message": "Not found: " + self.path}})
        request = json.loads(self.body())
        if not self.authorized():
            return
        if "FAIL" in request.get("query", ""):
            return self.send(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                             "message": "Syntax error: Unexpected identifier \"FAIL\" at [1:1]"}})
        if request.get("useLegacySql") is not False:
            return self.send(400, {"error": {"code": 400, "message": "legacy SQL asked for"}})
        self.server.polls = 0
        self.send(200, {"kind": "bigquery#queryResponse", "jobComplete": False,
                        "jobReference": {"projectId": PROJECT, "jobId": "job_1", "location": "EU"}})

    def do_GET(self):
        self.log()
        url = urllib.parse.urlparse(self.path)
        if url.path != f"/bigquery/v2/projects/{PROJECT}/queries/job_1":
            return self.send(404, {"error": {"code": 404, "message": "Not found: Job " + url.path}})
        if not self.authorized():
            return
        query = urllib.parse.parse_qs(url.query)
        assert query.get("location") == ["EU"], query
        self.server.polls += 1
        reference = {"projectId": PROJECT, "jobId": "job_1", "location": "EU"}
        if self.server.polls == 1:
            return self.send(200, {"jobReference": reference, "jobComplete": False})
        start = int(query.get("pageToken", ["0"])[0])
        size = min(PAGE, int(query.get("maxResults", [str(PAGE)])[0]))
        page = ROWS[start:start + size]
        answer = {"kind": "bigquery#getQueryResultsResponse", "jobReference": reference,
                  "jobComplete": True, "totalRows": str(len(ROWS)), "schema": {"fields": FIELDS},
                  "rows": [{"f": [{"v": v} for v in row]} for row in page]}
        if start + size < len(ROWS):
            answer["pageToken"] = str(start + size)
        self.send(200, answer)

    def token(self, form):
        def refuse(why):
            self.send(400, {"error": "invalid_grant", "error_description": why})
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return refuse("grant_type")
        try:
            header, claims, signature = form["assertion"][0].split(".")
            self.server.public.verify(b64url(signature), f"{header}.{claims}".encode(),
                                      padding.PKCS1v15(), hashes.SHA256())
        except Exception as e:  # noqa: BLE001 - any bad assertion is refused
            return refuse(f"Invalid JWT Signature ({type(e).__name__})")
        claims = json.loads(b64url(claims))
        if json.loads(b64url(header)).get("alg") != "RS256":
            return refuse("alg")
        if claims.get("iss") != EMAIL or claims.get("aud") != self.server.token_uri:
            return refuse("iss or aud")
        if "bigquery" not in claims.get("scope", "") or claims.get("exp", 0) < time.time():
            return refuse("scope or exp")
        self.send(200, {"access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"})


def main():
    folder = sys.argv[1]
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.dir = folder
    server.public = key.public_key()
    server.polls = 0
    server.token_uri = f"http://127.0.0.1:{server.server_port}/token"
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    with open(folder + "/key.json", "w") as f:
        json.dump({"type": "service_account", "project_id": PROJECT, "private_key_id": "k1",
                   "private_key": pem, "client_email": EMAIL, "client_id": "1",
                   "token_uri": server.token_uri}, f)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_port, flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
