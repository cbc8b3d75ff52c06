//! Where a JSON message ends in a stream of them: for the buffered transport.

use crate::error::{Error, ErrorKind, Result};

/// Finds where a JSON message (`[1,"name",...]`) ends in a buffer that grows, resuming where
/// it stopped: bracket and brace depth outside strings, no parsing. Bounded by
/// `max_len` bytes and `max_depth` levels of nesting; the message must begin with `[`.
///
/// ```
/// use thrift_core::json::MessageScanner;
/// let mut s = MessageScanner::new(1024, 64);
/// assert_eq!(s.scan(br#"[1,"a",1,0,{"1":{"str":"]"#).unwrap(), None);
/// assert_eq!(s.scan(br#"[1,"a",1,0,{"1":{"str":"]"}}][1"#).unwrap(), Some(29));
/// ```
#[derive(Clone, Debug)]
pub struct MessageScanner {
    pos: usize,
    depth: u32,
    in_string: bool,
    escaped: bool,
    max_len: usize,
    max_depth: u32,
}

impl MessageScanner {
    /// A scanner for messages of at most `max_len` bytes and `max_depth` levels of nesting
    /// below the envelope.
    pub fn new(max_len: usize, max_depth: u16) -> MessageScanner {
        // The envelope's array and the body's object are two levels of their own.
        MessageScanner {
            pos: 0,
            depth: 0,
            in_string: false,
            escaped: false,
            max_len,
            max_depth: u32::from(max_depth) * 2 + 2,
        }
    }

    /// Forgets the message scanned, for the next one.
    pub fn reset(&mut self) {
        self.pos = 0;
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
    }

    /// The length of the message at the start of `buf` once it is complete, `None` while
    /// it is not; `buf` holds every byte so far, those seen before included.
    ///
    /// # Errors
    /// Input that does not begin with `[`, a message longer than `max_len`, nesting deeper
    /// than `max_depth`, or a bracket closing below the envelope.
    pub fn scan(&mut self, buf: &[u8]) -> Result<Option<usize>> {
        if self.pos == 0 {
            match buf.first() {
                None => return Ok(None),
                Some(b'[') => {}
                Some(_) => {
                    return Err(Error::at(ErrorKind::BadEnvelope("a JSON message begins with '['"), 0));
                }
            }
        }
        let end = buf.len().min(self.max_len);
        while self.pos < end {
            let b = buf[self.pos];
            self.pos += 1;
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'[' | b'{' => {
                    self.depth += 1;
                    if self.depth > self.max_depth {
                        return Err(Error::at(ErrorKind::DepthExceeded((self.max_depth / 2) as u16), self.pos - 1));
                    }
                }
                b']' | b'}' => {
                    if self.depth == 0 {
                        return Err(Error::at(
                            ErrorKind::InvalidData("JSON: unbalanced brackets".into()),
                            self.pos - 1,
                        ));
                    }
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Ok(Some(self.pos));
                    }
                }
                _ => {}
            }
        }
        if buf.len() > self.max_len {
            let kind = ErrorKind::LengthTooLarge {
                len: buf.len() as u64,
                limit: self.max_len as u64,
                what: "max_message_len",
            };
            return Err(Error::at(kind, 0));
        }
        Ok(None)
    }

    /// Bytes examined of the current message.
    pub fn position(&self) -> usize {
        self.pos
    }
}
