#!/usr/bin/env python3
"""Apache Thrift's ThriftTest client, written with Apache's Python library.

The peer our Rust server is checked against: it calls every method of ThriftTest (and
SecondService when multiplexed) with the values Apache's own test clients send, checks each
result exactly, and exits with Apache's bitmask: 0 when every check passed, else 1 base
types, 2 structs, 4 containers, 8 exceptions, 64 setup or broken connection, 128 timeout.

    thrift_test_client.py [--host H] [--port N] [--protocol binary|compact|multi|multic]
                          [--transport buffered|framed] [--genpydir DIR]
"""

import argparse
import socket
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=9090)
    parser.add_argument("--protocol", choices=["binary", "compact", "multi", "multic"], default="binary")
    parser.add_argument("--transport", choices=["buffered", "framed"], default="buffered")
    parser.add_argument("--genpydir", help="the directory holding the generated ThriftTest package")
    return parser.parse_args()


BASE_TYPES, STRUCTS, CONTAINERS, EXCEPTIONS, UNKNOWN, TIMEOUT = 1, 2, 4, 8, 64, 128
# How long a call may take, and testOneway(1) at most (the server sleeps on it; the
# client must not wait).
CALL_TIMEOUT_MS = 10000
ONEWAY_MAX_SECONDS = 0.9

args = parse_args()
if args.genpydir:
    sys.path.insert(0, args.genpydir)

from thrift.Thrift import TApplicationException  # noqa: E402
from thrift.protocol import TBinaryProtocol, TCompactProtocol, TMultiplexedProtocol  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402

from ThriftTest import SecondService, ThriftTest  # noqa: E402
from ThriftTest.ttypes import Insanity, Numberz, Xception, Xception2, Xtruct, Xtruct2  # noqa: E402


class Suite:
    def __init__(self):
        self.code = 0

    def passed(self, what):
        print("%s ok" % what)

    def failed(self, bit, what, why):
        self.code |= bit
        print("%s *** FAILED *** %s" % (what, why))

    def failed_call(self, bit, what, error):
        if isinstance(error, TTransport.TTransportException):
            bit |= TIMEOUT if error.type == TTransport.TTransportException.TIMED_OUT else UNKNOWN
        elif isinstance(error, socket.timeout):
            bit |= TIMEOUT
        self.failed(bit, what, "call failed: %r" % error)

    def expect(self, bit, what, want, call, *call_args):
        try:
            got = call(*call_args)
        except Exception as e:
            self.failed_call(bit, what, e)
            return
        if got == want and type(got) is type(want):
            self.passed(what)
        else:
            self.failed(bit, what, "expected %r, got %r" % (want, got))

    def identity(self, bit, name, call, values):
        for value in values:
            self.expect(bit, "%s(%s)" % (name, short(value)), value, call, value)

    def throws(self, bit, what, check, call, *call_args):
        """`check(exception)` says whether the call failed as it should."""
        try:
            got = call(*call_args)
        except Exception as e:
            if check(e):
                self.passed(what)
            else:
                self.failed_call(bit, what, e)
            return
        self.failed(bit, what, "returned %r instead of throwing" % (got,))


def short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + ".."


def empty_or_none(container):
    return container is None or len(container) == 0


def unset_or_zero(*values):
    return all(v in (None, 0) for v in values)


UNICODE = (
    "Ελληνικά, Русский, 日本語, 中文, 한국어, עברית, العربية, हिन्दी, ไทย, ქართული, Tiếng Việt, "
    "Ⰴ Ⰵ, 😀 \U0001F680 \u0301e, \"quoted\" back\\slash /slash \b\f\n\r\t ]] }}}{ [[["
)


def run(client, client2):
    s = Suite()
    s.expect(BASE_TYPES, "testVoid()", None, client.testVoid)
    s.identity(BASE_TYPES, "testString", client.testString, ["Test", "", UNICODE])
    s.identity(BASE_TYPES, "testBool", client.testBool, [True, False])
    s.identity(BASE_TYPES, "testByte", client.testByte, [0, -1, 42, -42, 127, -128])
    s.identity(BASE_TYPES, "testI32", client.testI32, [0, -1, 190000013, -190000013, 2**31 - 1, -(2**31)])
    s.identity(
        BASE_TYPES,
        "testI64",
        client.testI64,
        [0, -1, 7000000000000000123, -7000000000000000123, 2**32, -(2**32), 2**32 + 1, -(2**32) - 1, 2**63 - 1,
         -(2**63)],
    )
    s.identity(
        BASE_TYPES,
        "testDouble",
        client.testDouble,
        [0.0, -1.0, -5.2098523, -0.000341012439638598279, 2.0**32, 2.0**32 + 1, 2.0**53 - 1, -(2.0**32),
         -(2.0**32) - 1, -(2.0**53) + 1, 1e307, 1e-292, 2.2250738585072014e-308],
    )
    s.identity(BASE_TYPES, "testBinary", client.testBinary, [b"", bytes(range(256))])

    xtruct = Xtruct(string_thing="Zero", byte_thing=1, i32_thing=-3, i64_thing=-5)
    s.expect(STRUCTS, 'testStruct({"Zero", 1, -3, -5})', xtruct, client.testStruct, xtruct)
    nest = Xtruct2(byte_thing=1, struct_thing=xtruct, i32_thing=5)
    s.expect(STRUCTS, 'testNest({1, {"Zero", 1, -3, -5}, 5})', nest, client.testNest, nest)

    m = {i: i - 10 for i in range(5)}
    s.expect(CONTAINERS, "testMap({0 => -10, ..})", m, client.testMap, m)
    sm = {"a": "2", "b": "blah", "some": "thing"}
    s.expect(CONTAINERS, "testStringMap({a => 2, b => blah, some => thing})", sm, client.testStringMap, sm)
    st = set(range(-2, 3))
    s.expect(CONTAINERS, "testSet({-2, -1, 0, 1, 2})", st, client.testSet, st)
    s.expect(CONTAINERS, "testList(empty)", [], client.testList, [])
    lst = list(range(-2, 3))
    s.expect(CONTAINERS, "testList({-2, -1, 0, 1, 2})", lst, client.testList, lst)

    for value in [Numberz.ONE, Numberz.TWO, Numberz.THREE, Numberz.FIVE, Numberz.EIGHT]:
        s.expect(STRUCTS, "testEnum(%d)" % value, value, client.testEnum, value)
    s.expect(STRUCTS, "testTypedef(309858235082523)", 309858235082523, client.testTypedef, 309858235082523)

    mm = {-4: {-4: -4, -3: -3, -2: -2, -1: -1}, 4: {1: 1, 2: 2, 3: 3, 4: 4}}
    s.expect(CONTAINERS, "testMapMap(1)", mm, client.testMapMap, 1)

    insane = Insanity(
        userMap={Numberz.FIVE: 5, Numberz.EIGHT: 8},
        xtructs=[Xtruct(string_thing="Goodbye4", byte_thing=4, i32_thing=4, i64_thing=4),
                 Xtruct(string_thing="Hello2", byte_thing=2, i32_thing=2, i64_thing=2)],
    )
    what = "testInsanity(..)"
    try:
        whoa = client.testInsanity(insane)
        empty = whoa.get(2, {}).get(Numberz.SIX)
        ok = (
            sorted(whoa) == [1, 2]
            and whoa[1] == {Numberz.TWO: insane, Numberz.THREE: insane}
            and sorted(whoa[2]) == [Numberz.SIX]
            # An empty Insanity: its fields unset or empty, as each language writes it.
            and empty_or_none(empty.userMap)
            and empty_or_none(empty.xtructs)
        )
        if ok:
            s.passed(what)
        else:
            s.failed(STRUCTS, what, "got %r" % (whoa,))
    except Exception as e:
        s.failed_call(STRUCTS, what, e)

    want = Xtruct(string_thing="Hello2", byte_thing=42, i32_thing=4242, i64_thing=424242)
    s.expect(STRUCTS, "testMulti(42, 4242, 424242, {1 => blah, 2 => thing}, EIGHT, 24)", want, client.testMulti, 42,
             4242, 424242, {1: "blah", 2: "thing"}, Numberz.EIGHT, 24)

    s.throws(EXCEPTIONS, 'testException("Xception")',
             lambda e: isinstance(e, Xception) and (e.errorCode, e.message) == (1001, "Xception"),
             client.testException, "Xception")
    s.throws(EXCEPTIONS, 'testException("TException")', lambda e: isinstance(e, TApplicationException),
             client.testException, "TException")
    s.expect(EXCEPTIONS, 'testException("success")', None, client.testException, "success")
    s.throws(EXCEPTIONS, 'testMultiException("Xception", "test 1")',
             lambda e: isinstance(e, Xception) and (e.errorCode, e.message) == (1001, "This is an Xception"),
             client.testMultiException, "Xception", "test 1")

    def is_xception2(e):
        if not isinstance(e, Xception2) or e.errorCode != 2002 or e.struct_thing is None:
            return False
        t = e.struct_thing
        return t.string_thing == "This is an Xception2" and unset_or_zero(t.byte_thing, t.i32_thing, t.i64_thing)

    s.throws(EXCEPTIONS, 'testMultiException("Xception2", "test 2")', is_xception2, client.testMultiException,
             "Xception2", "test 2")
    what = 'testMultiException("success", "test 3")'
    try:
        got = client.testMultiException("success", "test 3")
        if got.string_thing == "test 3" and unset_or_zero(got.byte_thing, got.i32_thing, got.i64_thing):
            s.passed(what)
        else:
            s.failed(EXCEPTIONS, what, "got %r" % (got,))
    except Exception as e:
        s.failed_call(EXCEPTIONS, what, e)

    what = "testOneway(1)"
    start = time.monotonic()
    try:
        client.testOneway(1)
        took = time.monotonic() - start
        if took <= ONEWAY_MAX_SECONDS:
            s.passed(what)
        else:
            s.failed(BASE_TYPES, what, "took %.3f s: the client waited for the server" % took)
    except Exception as e:
        s.failed_call(BASE_TYPES, what, e)
    # A server that answered the oneway call would now be one reply off.
    s.expect(BASE_TYPES, "re-test testI32(-1)", -1, client.testI32, -1)

    if client2 is not None:
        s.expect(BASE_TYPES, 'secondtestString("foobar")', 'testString("foobar")', client2.secondtestString,
                 "foobar")
    return s.code


def main():
    sock = TSocket.TSocket(args.host, args.port)
    sock.setTimeout(CALL_TIMEOUT_MS)
    if args.transport == "framed":
        transport = TTransport.TFramedTransport(sock)
    else:
        transport = TTransport.TBufferedTransport(sock)
    try:
        transport.open()
    except Exception as e:
        print("connect to %s:%d failed: %r" % (args.host, args.port, e))
        return UNKNOWN
    if args.protocol in ("binary", "multi"):
        protocol = TBinaryProtocol.TBinaryProtocol(transport)
    else:
        protocol = TCompactProtocol.TCompactProtocol(transport)
    if args.protocol.startswith("multi"):
        client = ThriftTest.Client(TMultiplexedProtocol.TMultiplexedProtocol(protocol, "ThriftTest"))
        client2 = SecondService.Client(TMultiplexedProtocol.TMultiplexedProtocol(protocol, "SecondService"))
    else:
        client, client2 = ThriftTest.Client(protocol), None
    try:
        return run(client, client2)
    finally:
        transport.close()


if __name__ == "__main__":
    sys.exit(main())
