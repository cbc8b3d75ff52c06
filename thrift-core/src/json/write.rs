//! Binary protocol bytes to JSON, guided by a [`Shape`].

use super::Shape;
use crate::error::{Error, ErrorKind, Result};

/// The JSON tag of a wire type id, or `None` for ids JSON has no tag for.
pub(super) fn tag(ttype: u8) -> Option<&'static [u8]> {
    Some(match ttype {
        2 => b"tf",
        3 => b"i8",
        4 => b"dbl",
        6 => b"i16",
        8 => b"i32",
        10 => b"i64",
        11 => b"str",
        12 => b"rec",
        13 => b"map",
        14 => b"set",
        15 => b"lst",
        16 => b"uid",
        _ => return None,
    })
}

/// Transcodes one binary value of wire type `ttype` spanning all of `input` to JSON.
pub(super) fn transcode(input: &[u8], ttype: u8, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
    let mut w = Writer { input, pos: 0, depth: 0, max_depth: u16::MAX };
    w.value(ttype, shape, false, out)?;
    if w.pos != input.len() {
        return Err(Error::at(ErrorKind::TrailingBytes(input.len() - w.pos), w.pos));
    }
    Ok(())
}

/// A cursor over binary-protocol bytes.
struct Writer<'a> {
    input: &'a [u8],
    pos: usize,
    depth: u16,
    max_depth: u16,
}

impl Writer<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self.pos.checked_add(N).filter(|&e| e <= self.input.len());
        match end {
            Some(end) => {
                let mut a = [0; N];
                a.copy_from_slice(&self.input[self.pos..end]);
                self.pos = end;
                Ok(a)
            }
            None => Err(self.truncated(N)),
        }
    }

    fn truncated(&self, needed: usize) -> Error {
        let remaining = self.input.len().saturating_sub(self.pos);
        Error::at(ErrorKind::Truncated { needed, remaining }, self.pos)
    }

    fn len(&mut self) -> Result<usize> {
        let n = i32::from_be_bytes(self.take()?);
        if n < 0 {
            return Err(Error::at(ErrorKind::NegativeLength(n.into()), self.pos));
        }
        Ok(n as usize)
    }

    fn value(&mut self, ttype: u8, shape: Shape, key: bool, out: &mut Vec<u8>) -> Result<()> {
        match ttype {
            2 => {
                let [b] = self.take()?;
                integer(i64::from(b != 0), key, out);
            }
            3 => integer(i8::from_be_bytes(self.take()?).into(), key, out),
            6 => integer(i16::from_be_bytes(self.take()?).into(), key, out),
            8 => integer(i32::from_be_bytes(self.take()?).into(), key, out),
            10 => integer(i64::from_be_bytes(self.take()?), key, out),
            4 => double(f64::from_bits(u64::from_be_bytes(self.take()?)), key, out),
            11 => {
                let len = self.len()?;
                if len > self.input.len() - self.pos {
                    return Err(self.truncated(len));
                }
                let bytes = &self.input[self.pos..self.pos + len];
                self.pos += len;
                if shape.is_binary() {
                    base64(bytes, out);
                } else {
                    string(bytes, out);
                }
            }
            16 => {
                let u: [u8; 16] = self.take()?;
                out.push(b'"');
                out.extend_from_slice(crate::Uuid(u).to_string().as_bytes());
                out.push(b'"');
            }
            12..=15 => {
                if self.depth >= self.max_depth {
                    return Err(Error::at(ErrorKind::DepthExceeded(self.max_depth), self.pos));
                }
                self.depth += 1;
                match ttype {
                    12 => self.fields(shape, out)?,
                    13 => self.map(shape, out)?,
                    _ => self.list(shape, out)?,
                }
                self.depth -= 1;
            }
            other => return Err(Error::at(ErrorKind::InvalidType(other), self.pos)),
        }
        Ok(())
    }

    fn elem_type(&mut self) -> Result<(u8, &'static [u8])> {
        let [t] = self.take()?;
        match tag(t) {
            Some(tag) => Ok((t, tag)),
            None => Err(Error::at(ErrorKind::InvalidType(t), self.pos - 1)),
        }
    }

    fn fields(&mut self, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
        out.push(b'{');
        let mut first = true;
        loop {
            let [t] = self.take()?;
            if t == 0 {
                break;
            }
            let Some(tag) = tag(t) else { return Err(Error::at(ErrorKind::InvalidType(t), self.pos - 1)) };
            let id = i16::from_be_bytes(self.take()?);
            if !first {
                out.push(b',');
            }
            first = false;
            integer(id.into(), true, out);
            out.extend_from_slice(b":{\"");
            out.extend_from_slice(tag);
            out.extend_from_slice(b"\":");
            self.value(t, shape.field(id), false, out)?;
            out.push(b'}');
        }
        out.push(b'}');
        Ok(())
    }

    fn list(&mut self, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
        let (t, tag) = self.elem_type()?;
        let n = self.len()?;
        out.extend_from_slice(b"[\"");
        out.extend_from_slice(tag);
        out.extend_from_slice(b"\",");
        integer(n as i64, false, out);
        let elem = shape.elem();
        for _ in 0..n {
            out.push(b',');
            self.value(t, elem, false, out)?;
        }
        out.push(b']');
        Ok(())
    }

    fn map(&mut self, shape: Shape, out: &mut Vec<u8>) -> Result<()> {
        let (k, ktag) = self.elem_type()?;
        let (v, vtag) = self.elem_type()?;
        let n = self.len()?;
        out.extend_from_slice(b"[\"");
        out.extend_from_slice(ktag);
        out.extend_from_slice(b"\",\"");
        out.extend_from_slice(vtag);
        out.extend_from_slice(b"\",");
        integer(n as i64, false, out);
        out.extend_from_slice(b",{");
        let (ks, vs) = shape.entries();
        for i in 0..n {
            if i > 0 {
                out.push(b',');
            }
            self.value(k, ks, true, out)?;
            out.push(b':');
            self.value(v, vs, false, out)?;
        }
        out.extend_from_slice(b"}]");
        Ok(())
    }
}

/// Writes an integer, quoted where JSON wants a string (a map key, a field id).
pub(super) fn integer(v: i64, quoted: bool, out: &mut Vec<u8>) {
    if quoted {
        out.push(b'"');
    }
    out.extend_from_slice(v.to_string().as_bytes());
    if quoted {
        out.push(b'"');
    }
}

/// Writes a double as Java's `Double.toString` does: shortest digits that read back
/// exactly, plain between 10⁻³ and 10⁷ (`0.001`, `1.0`, `1234567.0`), else computerized
/// scientific notation (`1.0E7`, `1.0E-4`); NaN and the infinities as quoted words.
pub(super) fn double(v: f64, quoted: bool, out: &mut Vec<u8>) {
    let special = if v.is_nan() {
        Some("NaN")
    } else if v.is_infinite() {
        Some(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        None
    };
    let text = match special {
        Some(s) => s.to_owned(),
        None => java_double(v),
    };
    let quoted = quoted || special.is_some();
    if quoted {
        out.push(b'"');
    }
    out.extend_from_slice(text.as_bytes());
    if quoted {
        out.push(b'"');
    }
}

/// Java's `Double.toString` of a finite double.
fn java_double(v: f64) -> String {
    let sign = if v.is_sign_negative() { "-" } else { "" };
    if v == 0.0 {
        return format!("{sign}0.0");
    }
    // Rust's `{:e}` gives the shortest digits that read back exactly: `d.ddde-x`.
    let sci = format!("{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let abs = v.abs();
    if (1e-3..1e7).contains(&abs) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            let (int, frac) = if digits.len() > int_len {
                (digits[..int_len].to_owned(), digits[int_len..].to_owned())
            } else {
                (format!("{digits:0<int_len$}"), "0".to_owned())
            };
            format!("{sign}{int}.{frac}")
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let frac = if digits.len() > 1 { &digits[1..] } else { "0" };
        format!("{sign}{}.{frac}E{exp}", &digits[..1])
    }
}

/// Writes bytes as a JSON string, escaped as Apache's Java and C++ writers do.
pub(super) fn string(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0d => out.extend_from_slice(b"\\r"),
            0..=0x1f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Writes bytes as a quoted base64 string without padding, as Apache's Java and C++ do.
pub(super) fn base64(bytes: &[u8], out: &mut Vec<u8>) {
    out.reserve(bytes.len() / 3 * 4 + 6);
    out.push(b'"');
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = u32::from(c[0]) << 16 | u32::from(c[1]) << 8 | u32::from(c[2]);
        for shift in [18, 12, 6, 0] {
            out.push(BASE64[(n >> shift & 63) as usize]);
        }
    }
    match *chunks.remainder() {
        [a] => {
            let n = u32::from(a) << 16;
            out.extend_from_slice(&[BASE64[(n >> 18 & 63) as usize], BASE64[(n >> 12 & 63) as usize]]);
        }
        [a, b] => {
            let n = u32::from(a) << 16 | u32::from(b) << 8;
            out.extend_from_slice(&[
                BASE64[(n >> 18 & 63) as usize],
                BASE64[(n >> 12 & 63) as usize],
                BASE64[(n >> 6 & 63) as usize],
            ]);
        }
        _ => {}
    }
    out.push(b'"');
}
