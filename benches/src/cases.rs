//! Every (library, shape, protocol, operation) cell of the comparison as a routine to time,
//! built only after checking that the library gets that cell right.

use std::fmt::Debug;
use std::hint::black_box;
use std::panic::{self, AssertUnwindSafe};

use bytes::{Bytes, BytesMut};
use pilota::thrift::Message;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol, TSerializable,
};
use thrift_core::{Binary, Compact, Decode, DecodeOwned, Encode, Protocol};

use crate::data::Values;
use crate::peers::{FromPilota, ToApache, ToPilota};
use crate::shapes::{Large, LargeRef, LargeShared, Medium, MediumRef, MediumShared, Small, SmallRef, SmallShared};

/// A library (or a way of using one) in the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Library {
    /// This project with owned fields (`String`, `Vec<u8>`).
    Ours,
    /// This project with borrowed fields (`&str`, `&[u8]`, `Bytes`).
    OursZeroCopy,
    /// This project with owned fields that share the input (`SharedStr`, `Bytes`).
    OursShared,
    /// pilota 0.13 with its safe protocols, as Volo uses them by default.
    Pilota,
    /// Apache's `thrift` crate 0.17 with code from Apache's compiler.
    Apache,
}

impl Library {
    /// All of them, in table order.
    pub const ALL: [Library; 5] =
        [Library::Ours, Library::OursZeroCopy, Library::OursShared, Library::Pilota, Library::Apache];

    /// The name shown in tables and benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Library::Ours => "ours",
            Library::OursZeroCopy => "ours-zero-copy",
            Library::OursShared => "ours-shared",
            Library::Pilota => "pilota",
            Library::Apache => "apache",
        }
    }
}

/// One of the three benchmark shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// [`Small`].
    Small,
    /// [`Medium`].
    Medium,
    /// [`Large`].
    Large,
}

impl ShapeKind {
    /// All of them, smallest first.
    pub const ALL: [ShapeKind; 3] = [ShapeKind::Small, ShapeKind::Medium, ShapeKind::Large];

    /// The name shown in tables and benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            ShapeKind::Small => "small",
            ShapeKind::Medium => "medium",
            ShapeKind::Large => "large",
        }
    }
}

/// The wire protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proto {
    /// `TBinaryProtocol`.
    Binary,
    /// `TCompactProtocol`.
    Compact,
}

impl Proto {
    /// Both.
    pub const ALL: [Proto; 2] = [Proto::Binary, Proto::Compact];

    /// The name shown in tables and benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Proto::Binary => Binary::NAME,
            Proto::Compact => Compact::NAME,
        }
    }
}

/// What is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A value to a new buffer holding its bytes.
    Encode,
    /// A complete message in memory to a value.
    Decode,
}

impl Op {
    /// Both.
    pub const ALL: [Op; 2] = [Op::Encode, Op::Decode];

    /// The name shown in tables and benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Op::Encode => "encode",
            Op::Decode => "decode",
        }
    }
}

/// One operation of one library on one shape in one protocol, ready to be called in a loop.
pub type Routine = Box<dyn FnMut()>;

/// A cell of the comparison: its size on the wire and its routine, or why the library
/// cannot be timed there (it wrote or read something wrong).
pub struct Prepared {
    /// The encoded size of the shape in this protocol (what MB/s counts).
    pub bytes: usize,
    /// The routine, or what the check found wrong.
    pub routine: Result<Routine, String>,
}

/// A shape as every library's type, with the conversions the checks need.
pub trait BenchShape:
    Encode
    + DecodeOwned
    + ToPilota<Pilota: Message + 'static>
    + ToApache<Apache: TSerializable + PartialEq + Debug + 'static>
    + FromPilota<<Self as ToPilota>::Pilota>
    + PartialEq
    + Debug
    + 'static
{
    /// The zero-copy type.
    type View<'a>: Encode + Decode<'a> + PartialEq + Debug;
    /// The zero-copy view of a value.
    fn view(&self) -> Self::View<'_>;
    /// The owned zero-copy type (`SharedStr`, `Bytes`).
    type Shared: Encode + DecodeOwned + PartialEq + Debug + 'static;
    /// The owned zero-copy form of a value.
    fn shared(&self) -> Self::Shared;
}

impl BenchShape for Small {
    type View<'a> = SmallRef<'a>;
    fn view(&self) -> SmallRef<'_> {
        self.borrowed()
    }
    type Shared = SmallShared;
    fn shared(&self) -> SmallShared {
        Small::shared(self)
    }
}

impl BenchShape for Medium {
    type View<'a> = MediumRef<'a>;
    fn view(&self) -> MediumRef<'_> {
        self.borrowed()
    }
    type Shared = MediumShared;
    fn shared(&self) -> MediumShared {
        Medium::shared(self)
    }
}

impl BenchShape for Large {
    type View<'a> = LargeRef<'a>;
    fn view(&self) -> LargeRef<'_> {
        self.borrowed()
    }
    type Shared = LargeShared;
    fn shared(&self) -> LargeShared {
        Large::shared(self)
    }
}

/// A protocol of this project paired with the peers' implementations of the same protocol.
pub trait PeerProtocol: Protocol {
    /// pilota: the exact size, one buffer of it, then the value, as Volo's codec does.
    fn pilota_encode<M: Message>(m: &M) -> Result<BytesMut, String>;
    /// pilota: a value from a complete message in a `Bytes`.
    fn pilota_decode<M: Message>(input: &Bytes) -> Result<M, String>;
    /// Apache: the value into a buffer of `capacity` (Apache cannot compute sizes).
    fn apache_encode<S: TSerializable>(s: &S, capacity: usize) -> Result<Vec<u8>, String>;
    /// Apache: a value from a slice.
    fn apache_decode<S: TSerializable>(input: &[u8]) -> Result<S, String>;
}

impl PeerProtocol for Binary {
    #[inline]
    fn pilota_encode<M: Message>(m: &M) -> Result<BytesMut, String> {
        use pilota::thrift::binary::TBinaryProtocol;
        let size = m.size(&mut TBinaryProtocol::new((), true));
        let mut buf = BytesMut::with_capacity(size);
        m.encode(&mut TBinaryProtocol::new(&mut buf, true)).map_err(|e| e.to_string())?;
        Ok(buf)
    }
    #[inline]
    fn pilota_decode<M: Message>(input: &Bytes) -> Result<M, String> {
        use pilota::thrift::binary::TBinaryProtocol;
        let mut input = input.clone();
        M::decode(&mut TBinaryProtocol::new(&mut input, true)).map_err(|e| e.to_string())
    }
    #[inline]
    fn apache_encode<S: TSerializable>(s: &S, capacity: usize) -> Result<Vec<u8>, String> {
        let mut buf = Vec::with_capacity(capacity);
        s.write_to_out_protocol(&mut TBinaryOutputProtocol::new(&mut buf, true)).map_err(|e| e.to_string())?;
        Ok(buf)
    }
    #[inline]
    fn apache_decode<S: TSerializable>(input: &[u8]) -> Result<S, String> {
        S::read_from_in_protocol(&mut TBinaryInputProtocol::new(input, true)).map_err(|e| e.to_string())
    }
}

impl PeerProtocol for Compact {
    #[inline]
    fn pilota_encode<M: Message>(m: &M) -> Result<BytesMut, String> {
        use pilota::thrift::compact::TCompactOutputProtocol;
        let mut sizer = TCompactOutputProtocol::new((), true);
        let size = m.size(&mut sizer);
        let mut buf = BytesMut::with_capacity(size);
        m.encode(&mut TCompactOutputProtocol::new(&mut buf, true)).map_err(|e| e.to_string())?;
        Ok(buf)
    }
    #[inline]
    fn pilota_decode<M: Message>(input: &Bytes) -> Result<M, String> {
        use pilota::thrift::compact::TCompactInputProtocol;
        let mut input = input.clone();
        M::decode(&mut TCompactInputProtocol::new(&mut input)).map_err(|e| e.to_string())
    }
    #[inline]
    fn apache_encode<S: TSerializable>(s: &S, capacity: usize) -> Result<Vec<u8>, String> {
        let mut buf = Vec::with_capacity(capacity);
        s.write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut buf)).map_err(|e| e.to_string())?;
        Ok(buf)
    }
    #[inline]
    fn apache_decode<S: TSerializable>(input: &[u8]) -> Result<S, String> {
        S::read_from_in_protocol(&mut TCompactInputProtocol::new(input)).map_err(|e| e.to_string())
    }
}

/// Runs `f`, turning a panic into an error that carries its message (and keeping the
/// default hook from printing it: a peer's panic is a finding, reported in the table).
pub fn catch<R>(f: impl FnOnce() -> Result<R, String>) -> Result<R, String> {
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let out = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(hook);
    match out {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string payload".into());
            Err(format!("panics: {msg}"))
        }
    }
}

/// Builds the routine of one cell after checking the library on it.
///
/// Whatever this project writes is the reference: before anything is timed, its owned and
/// zero-copy types must write the same bytes and read them back equal (a failure there is
/// a bug, and panics). Then Apache's bytes must be identical to the reference, and pilota's
/// must decode to the same value (its maps and sets are hashed, so their order varies).
pub fn prepare(values: &'static Values, lib: Library, shape: ShapeKind, proto: Proto, op: Op) -> Prepared {
    match (shape, proto) {
        (ShapeKind::Small, Proto::Binary) => prepare_with::<Small, Binary>(&values.small, lib, op),
        (ShapeKind::Small, Proto::Compact) => prepare_with::<Small, Compact>(&values.small, lib, op),
        (ShapeKind::Medium, Proto::Binary) => prepare_with::<Medium, Binary>(&values.medium, lib, op),
        (ShapeKind::Medium, Proto::Compact) => prepare_with::<Medium, Compact>(&values.medium, lib, op),
        (ShapeKind::Large, Proto::Binary) => prepare_with::<Large, Binary>(&values.large, lib, op),
        (ShapeKind::Large, Proto::Compact) => prepare_with::<Large, Compact>(&values.large, lib, op),
    }
}

fn prepare_with<T: BenchShape, P: PeerProtocol>(value: &'static T, lib: Library, op: Op) -> Prepared {
    let reference = Bytes::from(thrift_core::to_vec::<P, T>(value));
    let bytes = reference.len();
    check_ours::<T, P>(value, &reference);
    let routine = match (lib, op) {
        (Library::Ours, Op::Encode) => Ok(Box::new(move || {
            black_box(thrift_core::to_vec::<P, T>(black_box(value)));
        }) as Routine),
        (Library::Ours, Op::Decode) => Ok(Box::new(move || {
            black_box(thrift_core::from_slice::<P, T>(black_box(&reference)).expect("checked"));
        }) as Routine),
        (Library::OursZeroCopy, Op::Encode) => {
            // Leaked once per cell: the view borrows from the value and lives in the routine.
            let view: &'static T::View<'static> = Box::leak(Box::new(value.view()));
            Ok(Box::new(move || {
                black_box(thrift_core::to_vec::<P, T::View<'static>>(black_box(view)));
            }) as Routine)
        }
        (Library::OursZeroCopy, Op::Decode) => Ok(Box::new(move || {
            black_box(thrift_core::from_bytes::<P, T::View<'_>>(black_box(&reference)).expect("checked"));
        }) as Routine),
        (Library::OursShared, Op::Encode) => {
            let shared = value.shared();
            Ok(Box::new(move || {
                black_box(thrift_core::to_vec::<P, T::Shared>(black_box(&shared)));
            }) as Routine)
        }
        (Library::OursShared, Op::Decode) => Ok(Box::new(move || {
            black_box(thrift_core::from_bytes::<P, T::Shared>(black_box(&reference)).expect("checked"));
        }) as Routine),
        (Library::Pilota, Op::Encode) => {
            let p = value.to_pilota();
            check_pilota_encode::<T, P>(value, &p).map(|()| {
                Box::new(move || {
                    black_box(P::pilota_encode(black_box(&p)).expect("checked"));
                }) as Routine
            })
        }
        (Library::Pilota, Op::Decode) => check_pilota_decode::<T, P>(value, &reference).map(|()| {
            Box::new(move || {
                black_box(P::pilota_decode::<T::Pilota>(black_box(&reference)).expect("checked"));
            }) as Routine
        }),
        (Library::Apache, Op::Encode) => {
            let a = value.to_apache();
            check_apache_encode::<T, P>(&a, &reference).map(|()| {
                Box::new(move || {
                    black_box(P::apache_encode(black_box(&a), bytes).expect("checked"));
                }) as Routine
            })
        }
        (Library::Apache, Op::Decode) => check_apache_decode::<T, P>(value, &reference).map(|()| {
            Box::new(move || {
                black_box(P::apache_decode::<T::Apache>(black_box(&reference)).expect("checked"));
            }) as Routine
        }),
    };
    Prepared { bytes, routine }
}

/// This project's owned and zero-copy types agree on the bytes and read them back.
fn check_ours<T: BenchShape, P: Protocol>(value: &T, reference: &Bytes) {
    let view = value.view();
    assert_eq!(thrift_core::to_vec::<P, _>(&view), reference[..], "{}: the zero-copy type writes other bytes", P::NAME);
    assert_eq!(value.encoded_len::<P>(), reference.len());
    let owned: T = thrift_core::from_slice::<P, T>(reference).expect("ours decodes what it encoded");
    assert!(owned == *value, "{}: owned roundtrip differs", P::NAME);
    let borrowed = thrift_core::from_bytes::<P, T::View<'_>>(reference).expect("ours decodes what it encoded");
    assert!(borrowed == view, "{}: zero-copy roundtrip differs", P::NAME);
    let shared = value.shared();
    assert_eq!(thrift_core::to_vec::<P, _>(&shared), reference[..], "{}: the shared type writes other bytes", P::NAME);
    let back = thrift_core::from_bytes::<P, T::Shared>(reference).expect("ours decodes what it encoded");
    assert!(back == shared, "{}: shared roundtrip differs", P::NAME);
}

fn check_pilota_encode<T: BenchShape, P: PeerProtocol>(value: &T, p: &T::Pilota) -> Result<(), String> {
    let written = catch(|| P::pilota_encode(p)).map_err(|e| format!("encode {e}"))?;
    let back: T =
        thrift_core::from_slice::<P, T>(&written).map_err(|e| format!("writes bytes that do not decode ({e})"))?;
    if back != *value {
        return Err("writes bytes that decode to a different value".into());
    }
    Ok(())
}

fn check_pilota_decode<T: BenchShape, P: PeerProtocol>(value: &T, reference: &Bytes) -> Result<(), String> {
    let read: T::Pilota = catch(|| P::pilota_decode(reference)).map_err(|e| format!("decode {e}"))?;
    if T::from_pilota(&read) != *value {
        return Err("decodes a different value".into());
    }
    Ok(())
}

fn check_apache_encode<T: BenchShape, P: PeerProtocol>(a: &T::Apache, reference: &Bytes) -> Result<(), String> {
    let written = P::apache_encode(a, reference.len()).map_err(|e| format!("encode fails: {e}"))?;
    if written != reference[..] {
        return Err("writes different bytes".into());
    }
    Ok(())
}

fn check_apache_decode<T: BenchShape, P: PeerProtocol>(value: &T, reference: &Bytes) -> Result<(), String> {
    let read: T::Apache = catch(|| P::apache_decode(reference)).map_err(|e| format!("decode {e}"))?;
    if read != value.to_apache() {
        return Err("decodes a different value".into());
    }
    Ok(())
}
