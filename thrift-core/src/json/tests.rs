//! Exact bytes against Apache's TJSONProtocol, and hostile input.
//!
//! The expected bytes are Apache 0.17's format as its Java and C++ writers produce it
//! (`lib/java/src/main/java/org/apache/thrift/protocol/TJSONProtocol.java`,
//! `lib/cpp/src/thrift/protocol/TJSONProtocol.cpp`): no whitespace, quoted field ids and map
//! keys, unpadded base64, `\u00XX` for control bytes without a short escape.

use std::collections::BTreeMap;

use super::*;
use crate::{ErrorKind, Limits, MessageType, ThriftStruct, ThriftUnion};

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Xtruct {
    #[thrift(id = 1)]
    string_thing: String,
    #[thrift(id = 4)]
    byte_thing: i8,
    #[thrift(id = 9)]
    i32_thing: i32,
    #[thrift(id = 11)]
    i64_thing: i64,
}

#[derive(ThriftStruct, Debug, Clone, PartialEq)]
struct Mixed {
    #[thrift(id = 1)]
    flag: bool,
    #[thrift(id = 2)]
    ratio: f64,
    #[thrift(id = 3)]
    blob: Vec<u8>,
    #[thrift(id = 4)]
    blobs: Vec<Vec<u8>>,
    #[thrift(id = 5)]
    by_name: BTreeMap<String, Vec<u8>>,
    #[thrift(id = 6)]
    by_id: BTreeMap<i32, String>,
    #[thrift(id = 7)]
    inner: Option<Box<Mixed>>,
    #[thrift(id = 8)]
    choice: Option<Choice>,
}

#[derive(ThriftUnion, Debug, Clone, PartialEq)]
#[thrift(closed)]
enum Choice {
    #[thrift(id = 1)]
    Text(String),
    #[thrift(id = 2)]
    Data(bytes::Bytes),
}

fn s(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap()
}

#[test]
fn struct_bytes_match_apache() {
    let x = Xtruct { string_thing: "Zero".into(), byte_thing: 1, i32_thing: -3, i64_thing: -5 };
    let json = to_vec(&x);
    assert_eq!(s(&json), r#"{"1":{"str":"Zero"},"4":{"i8":1},"9":{"i32":-3},"11":{"i64":-5}}"#);
    assert_eq!(from_slice::<Xtruct>(&json).unwrap(), x);
}

#[test]
fn containers_binary_and_nesting_match_apache() {
    let m = Mixed {
        flag: true,
        ratio: 0.5,
        blob: vec![0xff, 0, 1],
        blobs: vec![vec![1], vec![1, 2]],
        by_name: BTreeMap::from([("k".to_owned(), vec![7, 7, 7, 7])]),
        by_id: BTreeMap::from([(1, "one".to_owned()), (-2, "minus two".to_owned())]),
        inner: Some(Box::new(Mixed {
            flag: false,
            ratio: f64::NEG_INFINITY,
            blob: vec![],
            blobs: vec![],
            by_name: BTreeMap::new(),
            by_id: BTreeMap::new(),
            inner: None,
            choice: Some(Choice::Data(bytes::Bytes::from_static(b"hi"))),
        })),
        choice: Some(Choice::Text("hi".into())),
    };
    let json = to_vec(&m);
    let expected = concat!(
        r#"{"1":{"tf":1},"2":{"dbl":0.5},"3":{"str":"/wAB"},"4":{"lst":["str",2,"AQ","AQI"]},"#,
        r#""5":{"map":["str","str",1,{"k":"BwcHBw"}]},"6":{"map":["i32","str",2,{"-2":"minus two","1":"one"}]},"#,
        r#""7":{"rec":{"1":{"tf":0},"2":{"dbl":"-Infinity"},"3":{"str":""},"4":{"lst":["str",0]},"#,
        r#""5":{"map":["str","str",0,{}]},"6":{"map":["i32","str",0,{}]},"8":{"rec":{"2":{"str":"aGk"}}}}},"#,
        r#""8":{"rec":{"1":{"str":"hi"}}}}"#
    );
    assert_eq!(s(&json), expected);
    assert_eq!(from_slice::<Mixed>(&json).unwrap(), m);
}

#[test]
fn strings_are_escaped_as_apache_does() {
    let text = "q\" b\\ /\u{1}\u{8}\t\n\u{c}\r\u{1f} é😀";
    let json = to_vec(text);
    assert_eq!(s(&json), "\"q\\\" b\\\\ /\\u0001\\b\\t\\n\\f\\r\\u001f é😀\"");
    assert_eq!(from_slice::<String>(&json).unwrap(), text);
    // What other writers may send: escaped slashes, \u escapes, surrogate pairs.
    let other = br#""\/\u00e9\ud83d\ude00\u0041""#;
    assert_eq!(from_slice::<String>(other).unwrap(), "/é😀A");
    for bad in [&br#""\ud83d""#[..], br#""\ude00""#, br#""\x""#, br#""\u12g4""#] {
        assert!(from_slice::<String>(bad).is_err(), "{}", s(bad));
    }
}

#[test]
fn doubles_are_written_as_java_does() {
    let cases: [(f64, &str); 14] = [
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (-2.5, "-2.5"),
        (0.1, "0.1"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (1234567.0, "1234567.0"),
        (1e7, "1.0E7"),
        (12345678.9, "1.23456789E7"),
        (f64::MAX, "1.7976931348623157E308"),
        (1e-5, "1.0E-5"),
        (f64::NAN, "\"NaN\""),
        (f64::INFINITY, "\"Infinity\""),
    ];
    for (v, text) in cases {
        assert_eq!(s(&to_vec(&v)), text, "{v:?}");
        let back: f64 = from_slice(text.as_bytes()).unwrap();
        assert!(back.to_bits() == v.to_bits() || (v.is_nan() && back.is_nan()), "{text}");
    }
    // Python's writer: `%.17g`, and map keys quoted.
    assert_eq!(from_slice::<f64>(b"0.10000000000000001").unwrap(), 0.1);
    assert_eq!(from_slice::<f64>(b"1e+300").unwrap(), 1e300);
    let keys: BTreeMap<crate::OrderedDouble, bool> = from_slice(br#"["dbl","tf",1,{"1.5":1}]"#).unwrap();
    assert_eq!(keys.into_iter().next().map(|(k, v)| (k.0, v)), Some((1.5, true)));
}

#[test]
fn base64_reads_padded_and_unpadded() {
    for (bytes, unpadded, padded) in
        [(&b""[..], "", ""), (b"a", "YQ", "YQ=="), (b"ab", "YWI", "YWI="), (b"abc", "YWJj", "YWJj")]
    {
        assert_eq!(s(&to_vec(bytes)), format!("\"{unpadded}\""));
        for text in [unpadded, padded] {
            let back: Vec<u8> = from_slice(format!("\"{text}\"").as_bytes()).unwrap();
            assert_eq!(back, bytes);
        }
    }
    for bad in [&b"\"Y\""[..], b"\"Y!==\"", b"\"Y===\""] {
        assert!(from_slice::<Vec<u8>>(bad).is_err(), "{}", s(bad));
    }
}

#[test]
fn messages_match_apache() {
    let header = MessageHeader { name: "testStruct", kind: MessageType::Reply, seqid: 7 };
    let mut out = Vec::new();
    let body = crate::__private::MethodResult::<crate::__private::Returns<Vec<u8>>, crate::NoException>::Ok(
        crate::__private::Returns(vec![1, 2, 3]),
    );
    write_message(&header, &body, &mut out);
    assert_eq!(s(&out), r#"[1,"testStruct",2,7,{"0":{"str":"AQID"}}]"#);
    let mut r = Reader::new(&out);
    assert_eq!(read_message_begin(&mut r).unwrap(), header);
    let back: crate::__private::MethodResult<crate::__private::Returns<Vec<u8>>, crate::NoException> =
        decode_body(r.rest(), &Limits::default()).unwrap();
    assert_eq!(back.into_result().unwrap().0, [1, 2, 3]);
    // Whitespace between tokens is read too.
    let spaced = b" [ 1 , \"ping\" , 1 , 0 , { } ] ";
    let mut r = Reader::new(spaced);
    assert_eq!(read_message_begin(&mut r).unwrap().name, "ping");
    decode_body::<crate::__private::MethodResult<crate::__private::Void, crate::NoException>>(
        r.rest(),
        &Limits::default(),
    )
    .unwrap();
    for bad in [&br#"[2,"a",1,0,{}]"#[..], br#"[1,"a",9,0,{}]"#, br#"[1,"a\"",1,0,{}]"#, br#"[1,"a",1,99999999999,{}]"#]
    {
        assert!(read_message_begin(&mut Reader::new(bad)).is_err(), "{}", s(bad));
    }
}

#[test]
fn unknown_fields_are_transcoded_as_text() {
    // Fields the type lacks, one binary on the writer's side: read as text, then skipped.
    let json = br#"{"1":{"str":"Zero"},"2":{"str":"AQID"},"3":{"lst":["map",1,["i8","rec",1,{"1":{}}]]}}"#;
    let x: Xtruct = from_slice(json).unwrap();
    assert_eq!(x, Xtruct { string_thing: "Zero".into(), byte_thing: 0, i32_thing: 0, i64_thing: 0 });
    let binary = to_binary::<Xtruct>(json, &Limits::default()).unwrap();
    assert_eq!(binary[..7], [11, 0, 1, 0, 0, 0, 4]);
}

/// A sample of every kind of value, as JSON.
fn sample() -> Vec<u8> {
    let m = Mixed {
        flag: true,
        ratio: 1e300,
        blob: b"abcd".to_vec(),
        blobs: vec![vec![1, 2, 3, 4, 5]],
        by_name: BTreeMap::from([("\u{1}k\"".to_owned(), vec![9])]),
        by_id: BTreeMap::from([(7, "seven".to_owned())]),
        inner: Some(Box::new(Mixed {
            flag: false,
            ratio: f64::NAN,
            blob: vec![],
            blobs: vec![],
            by_name: BTreeMap::new(),
            by_id: BTreeMap::new(),
            inner: None,
            choice: None,
        })),
        choice: Some(Choice::Data(bytes::Bytes::from_static(b"xyz"))),
    };
    to_vec(&m)
}

#[test]
fn every_truncation_is_an_error() {
    let json = sample();
    from_slice::<Mixed>(&json).unwrap();
    for cut in 0..json.len() {
        assert!(from_slice::<Mixed>(&json[..cut]).is_err(), "cut at {cut}: {}", s(&json[..cut]));
        assert!(to_binary::<Mixed>(&json[..cut], &Limits::default()).is_err());
    }
}

#[test]
fn garbage_and_flipped_bytes_are_errors_not_panics() {
    let json = sample();
    for i in 0..json.len() {
        for b in [b'[', b']', b'{', b'}', b'"', b'\\', b',', b':', b'9', b'-', 0xff, 0] {
            let mut bad = json.clone();
            bad[i] = b;
            let _ = from_slice::<Mixed>(&bad);
            let _ = to_binary::<Mixed>(&bad, &Limits::default());
        }
    }
    for garbage in
        [&b""[..], b"x", b"{", b"{\"1\"", b"[\"i32\"", b"\"\\u", b"{\"1\":{\"nope\":1}}", b"{\"99999\":{\"i32\":1}}"]
    {
        assert!(from_slice::<Mixed>(garbage).is_err(), "{}", s(garbage));
    }
    // Out-of-range numbers for their type.
    assert!(from_slice::<i8>(b"128").is_err());
    assert!(from_slice::<i32>(b"2147483648").is_err());
    assert!(from_slice::<i64>(b"9223372036854775808").is_err());
    assert_eq!(from_slice::<i64>(b"-9223372036854775808").unwrap(), i64::MIN);
}

#[test]
fn deep_nesting_stops_at_the_depth_limit() {
    let depth = 10_000;
    let mut json = Vec::new();
    for _ in 0..depth {
        json.extend_from_slice(b"[\"lst\",1,");
    }
    json.extend_from_slice(b"[\"i32\",0]");
    json.extend(std::iter::repeat_n(b']', depth));
    let err = to_binary::<Vec<i32>>(&json, &Limits::default()).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::DepthExceeded(_)), "{err}");
    let mut scanner = MessageScanner::new(1 << 20, 64);
    assert!(scanner.scan(&json).is_err());
}

#[test]
fn huge_declared_counts_are_refused_before_allocating() {
    let errors = [
        to_binary::<Vec<i32>>(br#"["i32",2147483647,1]"#, &Limits::default()),
        to_binary::<Vec<i32>>(br#"["i32",-1]"#, &Limits::default()),
        to_binary::<BTreeMap<String, i32>>(br#"["str","i32",1000000,{}]"#, &Limits::default()),
    ];
    for err in errors {
        let err = err.unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::LengthTooLarge { .. } | ErrorKind::NegativeLength(_)), "{err}");
    }
    // A count that is less than the elements present, or more.
    assert!(from_slice::<Vec<i32>>(br#"["i32",1,1,2]"#).is_err());
    assert!(from_slice::<Vec<i32>>(br#"["i32",3,1,2]"#).is_err());
    let tight = Limits { max_container_len: 2, max_string_len: 3, ..Limits::default() };
    assert!(from_slice_with_limits::<Vec<i32>>(br#"["i32",3,1,2,3]"#, &tight).is_err());
    assert!(from_slice_with_limits::<String>(br#""abcd""#, &tight).is_err());
    assert!(from_slice_with_limits::<String>(br#""ab\ncd""#, &tight).is_err());
    let small = Limits { max_message_len: 4, ..Limits::default() };
    assert!(from_slice_with_limits::<String>(br#""abcd""#, &small).is_err());
}

#[test]
fn the_scanner_finds_message_ends_across_reads() {
    let header = MessageHeader { name: "m", kind: MessageType::Call, seqid: 1 };
    let mut stream = Vec::new();
    write_message(&header, &"a]\"[{".to_owned(), &mut Vec::new());
    let x = Xtruct { string_thing: "]}\"\\".into(), byte_thing: 0, i32_thing: 0, i64_thing: 0 };
    write_message(&header, &x, &mut stream);
    let first = stream.len();
    write_message(&header, &x, &mut stream);
    let mut scanner = MessageScanner::new(1 << 20, 64);
    for n in 0..first {
        assert_eq!(scanner.scan(&stream[..n]).unwrap(), None, "{n}");
    }
    assert_eq!(scanner.scan(&stream).unwrap(), Some(first));
    scanner.reset();
    assert_eq!(scanner.scan(&stream[first..]).unwrap(), Some(first));
    let mut small = MessageScanner::new(10, 64);
    assert!(small.scan(&stream).is_err());
    assert!(MessageScanner::new(100, 64).scan(b"{}").is_err());
}
