"""A local OTLP/HTTP trace receiver for the trace tests.

    receiver.py OUT PORTFILE

Listens on a free port of 127.0.0.1 (written to PORTFILE), decodes each POST of an
ExportTraceServiceRequest with the OpenTelemetry protocol definitions (PyPI's
opentelemetry-proto), and appends one JSON line per span to OUT: its trace, span and parent ids
(hex), name, attributes, status, the resource's attributes, and the request's path and content
type. It stops by itself after five minutes.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

OUT, PORTFILE = sys.argv[1], sys.argv[2]
LOCK = threading.Lock()


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind in ("string_value", "bool_value", "int_value", "double_value"):
        return getattr(any_value, kind)
    return str(any_value)


def attributes(pairs):
    return {pair.key: value(pair.value) for pair in pairs}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        request = ExportTraceServiceRequest.FromString(body)
        lines = []
        for resource_spans in request.resource_spans:
            resource = attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    lines.append(json.dumps({
                        "trace_id": span.trace_id.hex(),
                        "span_id": span.span_id.hex(),
                        "parent": span.parent_span_id.hex(),
                        "name": span.name,
                        "attributes": attributes(span.attributes),
                        "status": span.status.code,
                        "status_message": span.status.message,
                        "resource": resource,
                        "path": self.path,
                        "content_type": self.headers.get("Content-Type"),
                    }))
        with LOCK, open(OUT, "a") as out:
            for line in lines:
                out.write(line + "\n")
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Timer(300, server.shutdown).start()
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402

os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
