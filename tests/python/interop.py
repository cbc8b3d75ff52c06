#!/usr/bin/env python3
"""Encodes and decodes Thrift values with Apache Thrift's Python library, for the Rust tests.

Driven in batch by tests/src/python.rs: one JSON request per line on stdin, one JSON
response per line on stdout, so a single process serves a whole test.

Values travel as JSON shaped by the generated classes' `thrift_spec`, so this helper knows
nothing about any particular IDL:
  bool -> true/false; byte, i16, i32, i64, enums -> numbers;
  double -> 16 hex digits of its IEEE 754 bits (exact for NaN payloads, infinities, -0.0);
  string -> JSON string; binary -> hex;
  list, set -> array; map -> array of [key, value] pairs (keys need not be strings);
  struct, union, exception -> object keyed by field name; an absent or null member leaves
  the field unset (None), so it is not written.

Requests (every response has "ok"; a false one carries "error"):
  {"op": "hello"}
  {"op": "encode", "proto", "type", "value"[, "module"]}
      -> {"hex", "ordered"}: "ordered" is false when a set of more than one element was
         written, whose order on the wire is Python's hash order, not the given order.
  {"op": "check", "proto", "type", "hex", "expect"[, "module"]}
      decodes "hex", requires every byte consumed, and compares with "expect" by value
      (sets and maps without regard to order, doubles by bits).
  {"op": "same", "type", "a", "b"[, "module"]}
      compares two JSON values of a type the same way.
  {"op": "encode_message", "proto", "name", "kind", "seqid", "type", "value"[, "module"]}
  {"op": "check_message", "proto", "hex", "name", "kind", "seqid", "type", "expect"[, "module"]}
      like encode/check for a whole message: envelope, body, end. "type" may be
      "TApplicationException" (fields "message" and "type").

Protocols ("proto"): binary, binary-nonstrict (old-style envelopes), binary-accel,
compact, compact-accel. The accelerated ones are built with fallback=False, so they fail
rather than quietly use pure Python when the C extension fastbinary is missing.
"""

import importlib
import inspect
import json
import struct
import sys
import traceback

from thrift.Thrift import TApplicationException, TType
from thrift.protocol import TBinaryProtocol, TCompactProtocol, TJSONProtocol
from thrift.transport import TTransport

try:
    from thrift.protocol import fastbinary
except ImportError:  # reported by "hello"; the accelerated protocols then refuse to start
    fastbinary = None

PROTOCOLS = {
    "binary": lambda t: TBinaryProtocol.TBinaryProtocol(t),
    "binary-nonstrict": lambda t: TBinaryProtocol.TBinaryProtocol(t, strictWrite=False),
    "binary-accel": lambda t: TBinaryProtocol.TBinaryProtocolAccelerated(t, fallback=False),
    "compact": lambda t: TCompactProtocol.TCompactProtocol(t),
    "compact-accel": lambda t: TCompactProtocol.TCompactProtocolAccelerated(t, fallback=False),
    "json": lambda t: TJSONProtocol.TJSONProtocol(t),
}

# TApplicationException has no thrift_spec; this one mirrors its read/write.
APP_EXCEPTION_SPEC = (
    None,
    (1, TType.STRING, "message", "UTF8", None),
    (2, TType.I32, "type", None, None),
)


class Builder:
    """Builds Python values from JSON, noting whether the wire order is the given order."""

    def __init__(self):
        self.ordered = True

    def value(self, ttype, args, j):
        if ttype == TType.BOOL:
            if not isinstance(j, bool):
                raise ValueError("expected a bool, got %r" % (j,))
            return j
        if ttype in (TType.BYTE, TType.I16, TType.I32, TType.I64):
            if isinstance(j, bool) or not isinstance(j, int):
                raise ValueError("expected an integer, got %r" % (j,))
            return j
        if ttype == TType.DOUBLE:
            return struct.unpack(">d", bytes.fromhex(j))[0]
        if ttype == TType.STRING:
            return bytes.fromhex(j) if args == "BINARY" else str(j)
        if ttype == TType.STRUCT:
            return self.struct(args[0], args[0].thrift_spec, j)
        if ttype == TType.LIST:
            return [self.value(args[0], args[1], e) for e in j]
        if ttype == TType.SET:
            if len(j) > 1:
                self.ordered = False
            out = {self.value(args[0], args[1], e) for e in j}
            if len(out) != len(j):
                raise ValueError("set has duplicate elements: %r" % (j,))
            return out
        if ttype == TType.MAP:
            # Python dicts keep insertion order, so the wire order is the order given.
            out = {self.value(args[0], args[1], k): self.value(args[2], args[3], v) for k, v in j}
            if len(out) != len(j):
                raise ValueError("map has duplicate keys: %r" % (j,))
            return out
        raise ValueError("unsupported type id %d" % ttype)

    def struct(self, cls, spec, j):
        if not isinstance(j, dict):
            raise ValueError("expected an object for %s, got %r" % (cls.__name__, j))
        kwargs = {}
        for field in spec:
            if field is None:
                continue
            _, ftype, name, fargs, _ = field
            if name in j:
                member = j[name]
                kwargs[name] = None if member is None else self.value(ftype, fargs, member)
        unknown = set(j) - {f[2] for f in spec if f is not None}
        if unknown:
            raise ValueError("%s has no fields %s" % (cls.__name__, sorted(unknown)))
        # Through the constructor: generated exceptions are immutable once built.
        return cls(**kwargs)


def read_struct(cls, iprot):
    """Reads one value of `cls`: immutable generated types (exceptions) read through a
    classmethod that returns the value, mutable ones into a new instance."""
    if inspect.ismethod(cls.read):
        return cls.read(iprot)
    obj = cls()
    obj.read(iprot)
    return obj


def canonical(ttype, args, v):
    """A JSON-comparable form: sets and maps sorted, doubles as bits, binary as hex."""
    if v is None:
        return None
    if ttype == TType.DOUBLE:
        return struct.pack(">d", v).hex()
    if ttype == TType.STRING:
        if args == "BINARY":
            if not isinstance(v, (bytes, bytearray)):
                raise ValueError("binary decoded as %r" % type(v))
            return bytes(v).hex()
        if not isinstance(v, str):
            raise ValueError("string decoded as %r" % type(v))
        return v
    if ttype == TType.STRUCT:
        return canonical_struct(args[1] if args[1] is not None else args[0].thrift_spec, v)
    if ttype == TType.LIST:
        return [canonical(args[0], args[1], e) for e in v]
    if ttype == TType.SET:
        return sorted((canonical(args[0], args[1], e) for e in v), key=json.dumps)
    if ttype == TType.MAP:
        pairs = [[canonical(args[0], args[1], k), canonical(args[2], args[3], x)] for k, x in v.items()]
        return sorted(pairs, key=lambda p: json.dumps(p[0]))
    return v


def canonical_struct(spec, obj):
    out = {}
    for field in spec:
        if field is None:
            continue
        _, ftype, name, fargs, _ = field
        value = getattr(obj, name, None)
        if value is not None:
            out[name] = canonical(ftype, fargs, value)
    return out


def first_difference(a, b, path="$"):
    """Where two canonical values first differ, briefly (values can be megabytes)."""
    if type(a) is not type(b):
        return "%s: %s vs %s" % (path, brief(a), brief(b))
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s: present only in %s" % (path, k, "decoded" if k in a else "expected")
            d = first_difference(a[k], b[k], "%s.%s" % (path, k))
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d elements vs %d" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %s vs %s" % (path, brief(a), brief(b))


def brief(v):
    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


class Types:
    """Resolves type names ("Point", "Echo.echo_args") in generated modules."""

    def __init__(self):
        self.cache = {}

    def resolve(self, module, name):
        if name == "TApplicationException":
            return TApplicationException, APP_EXCEPTION_SPEC
        key = (module, name)
        if key not in self.cache:
            if "." in name:
                service, cls = name.split(".", 1)
                mod = importlib.import_module("%s.%s" % (module, service))
            else:
                cls = name
                mod = importlib.import_module("%s.ttypes" % module)
            found = getattr(mod, cls)
            self.cache[key] = (found, found.thrift_spec)
        return self.cache[key]


def protocol(name, transport):
    if name not in PROTOCOLS:
        raise ValueError("unknown protocol %r" % name)
    return PROTOCOLS[name](transport)


def read_all(cls, spec, iprot, transport, data):
    obj = read_struct(cls, iprot)
    consumed = transport.cstringio_buf.tell()
    if consumed != len(data):
        raise ValueError("decoded %d of %d bytes" % (consumed, len(data)))
    return obj


def compare(spec, obj, expect_obj):
    got = canonical_struct(spec, obj)
    want = canonical_struct(spec, expect_obj)
    if got != want:
        return {"ok": False, "error": "decoded value differs: " + str(first_difference(got, want))}
    return {"ok": True}


def handle(req, types):
    op = req["op"]
    module = req.get("module", "interop_types")
    if op == "hello":
        import thrift

        try:
            from importlib.metadata import version

            lib_version = version("thrift")
        except Exception:  # Debian's python3-thrift ships no distribution metadata
            lib_version = "unknown"
        return {
            "ok": True,
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "thrift": thrift.__file__,
            "thrift_version": lib_version,
            "fastbinary": getattr(fastbinary, "__file__", None),
        }
    if op == "encode":
        cls, spec = types.resolve(module, req["type"])
        builder = Builder()
        obj = builder.struct(cls, spec, req["value"])
        transport = TTransport.TMemoryBuffer()
        obj.write(protocol(req["proto"], transport))
        return {"ok": True, "hex": transport.getvalue().hex(), "ordered": builder.ordered}
    if op == "check":
        cls, spec = types.resolve(module, req["type"])
        data = bytes.fromhex(req["hex"])
        transport = TTransport.TMemoryBuffer(data)
        obj = read_all(cls, spec, protocol(req["proto"], transport), transport, data)
        return compare(spec, obj, Builder().struct(cls, spec, req["expect"]))
    if op == "same":
        cls, spec = types.resolve(module, req["type"])
        return compare(spec, Builder().struct(cls, spec, req["a"]), Builder().struct(cls, spec, req["b"]))
    if op == "encode_message":
        cls, spec = types.resolve(module, req["type"])
        builder = Builder()
        obj = builder.struct(cls, spec, req["value"])
        transport = TTransport.TMemoryBuffer()
        oprot = protocol(req["proto"], transport)
        oprot.writeMessageBegin(req["name"], req["kind"], req["seqid"])
        obj.write(oprot)
        oprot.writeMessageEnd()
        return {"ok": True, "hex": transport.getvalue().hex(), "ordered": builder.ordered}
    if op == "check_message":
        cls, spec = types.resolve(module, req["type"])
        data = bytes.fromhex(req["hex"])
        transport = TTransport.TMemoryBuffer(data)
        iprot = protocol(req["proto"], transport)
        name, kind, seqid = iprot.readMessageBegin()
        header = [name, kind, seqid]
        if header != [req["name"], req["kind"], req["seqid"]]:
            return {"ok": False, "error": "envelope %r, expected %r" % (header, [req["name"], req["kind"], req["seqid"]])}
        obj = read_struct(cls, iprot)
        iprot.readMessageEnd()
        consumed = transport.cstringio_buf.tell()
        if consumed != len(data):
            return {"ok": False, "error": "decoded %d of %d bytes" % (consumed, len(data))}
        return compare(spec, obj, Builder().struct(cls, spec, req["expect"]))
    raise ValueError("unknown op %r" % op)


def main():
    # Deep nesting recurses once per level in the pure-Python protocols.
    sys.setrecursionlimit(10000)
    types = Types()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            resp = handle(json.loads(line), types)
        except Exception as e:  # every failure goes back to the Rust test, which reports it
            resp = {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "traceback": traceback.format_exc()}
        sys.stdout.write(json.dumps(resp, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
