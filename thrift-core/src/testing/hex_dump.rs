//! Hex dumps of encoded values for failure messages, the failing byte marked.

use std::fmt::Write;

/// Bytes per line of a dump.
const WIDTH: usize = 16;
/// Lines shown before and after the marked one in a dump too long to show whole.
const CONTEXT_LINES: usize = 4;
/// Lines a dump shows whole.
const MAX_LINES: usize = 64;

/// `bytes` as lines of 16 hex bytes after their offset, the byte at `mark` in brackets.
/// A long dump keeps a few lines either side of the mark (or of the start).
///
/// ```text
/// 0000  0b 00 01 00 00 00 02 68 69[08]00 02 00 00 00 07
/// ```
pub fn hex_dump(bytes: &[u8], mark: Option<usize>) -> String {
    let lines = bytes.len().div_ceil(WIDTH).max(1);
    let shown = if lines <= MAX_LINES {
        0..lines
    } else {
        let at = mark.unwrap_or(0).min(bytes.len()) / WIDTH;
        at.saturating_sub(CONTEXT_LINES)..(at + CONTEXT_LINES + 1).min(lines)
    };
    let mut out = String::new();
    if shown.start > 0 {
        let _ = writeln!(out, "      ... {} bytes before", shown.start * WIDTH);
    }
    for line in shown.clone() {
        let start = line * WIDTH;
        let _ = write!(out, "{start:04x} ");
        for (i, &b) in bytes.iter().enumerate().skip(start).take(WIDTH) {
            match mark {
                Some(m) if m == i => {
                    let _ = write!(out, "[{b:02x}]");
                }
                // The bracket of the marked byte stands in for this one's space.
                Some(m) if m + 1 == i => {
                    let _ = write!(out, "{b:02x}");
                }
                _ => {
                    let _ = write!(out, " {b:02x}");
                }
            }
        }
        // A mark just past the end (a value cut short) shows as an empty bracket.
        if mark == Some(bytes.len()) && (start..start + WIDTH + 1).contains(&bytes.len()) && line + 1 == lines {
            out.push_str("[]");
        }
        out.push('\n');
    }
    if shown.end < lines {
        let _ = writeln!(out, "      ... {} bytes after", bytes.len() - shown.end * WIDTH);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::hex_dump;

    #[test]
    fn marks_the_failing_byte() {
        let dump = hex_dump(&[0x0b, 0x00, 0x01, 0xff], Some(2));
        assert_eq!(dump, "0000  0b 00[01]ff\n");
        assert_eq!(hex_dump(&[1, 2], None), "0000  01 02\n");
        assert_eq!(hex_dump(&[1, 2], Some(2)), "0000  01 02[]\n");
    }

    #[test]
    fn long_dumps_keep_the_lines_around_the_mark() {
        let bytes: Vec<u8> = (0..16u8).cycle().take(16 * 100).collect();
        let dump = hex_dump(&bytes, Some(16 * 50 + 3));
        assert!(dump.starts_with("      ... 736 bytes before\n02e0 "), "{dump}");
        assert!(dump.contains("0320  00 01 02[03]04"), "{dump}");
        assert!(dump.ends_with("      ... 720 bytes after\n"), "{dump}");
        assert_eq!(dump.lines().count(), 2 + 2 * 4 + 1);
    }
}
