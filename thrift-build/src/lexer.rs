//! Tokens of the Thrift IDL, as Apache's flex scanner (`thriftl.ll`, 0.17) cuts them.
//!
//! Identifiers may hold dots (`shared.Thing`, `Enum.VALUE`); `true` and `false` are the
//! integers 1 and 0; integers are decimal or `0x` hex with an optional sign, and must fit
//! an `i64`; a number with a fraction or an exponent is a double (`e10` alone is an
//! identifier). Strings take single or double quotes, no newline, and the escapes
//! `\n \r \t \" \' \\`. Comments are `//`, `#` and `/* */`; `/** */` is a doc comment,
//! kept as a token so the parser can attach it to what follows.

use crate::diagnostics::{Diagnostic, Diagnostics, FileId, Span};

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name or keyword, dots included.
    Ident(String),
    /// An integer (also `true` = 1 and `false` = 0).
    Int(i64),
    /// A double.
    Double(f64),
    /// A string literal, escapes applied.
    Str(String),
    /// One of `: ; , { } ( ) = < > [ ] * &`.
    Sym(char),
    /// A `/** */` comment, cleaned of its stars and indentation.
    Doc(String),
    /// The end of the file.
    Eof,
}

impl Tok {
    /// How a message names this token: `identifier \`foo\``, `\`{\``, `end of file`.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(i) => format!("integer `{i}`"),
            Tok::Double(d) => format!("number `{d}`"),
            Tok::Str(_) => "a string literal".into(),
            Tok::Sym(c) => format!("`{c}`"),
            Tok::Doc(_) => "a doc comment".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// A token and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Where.
    pub span: Span,
    /// Whether it is `true` or `false` (an integer to Apache, a boolean to a reader).
    pub is_bool: bool,
}

/// Cuts `text` into tokens, ending with [`Tok::Eof`]. Mistakes (a stray character, an
/// unterminated string or comment, a bad escape, an integer too big) are reported and
/// skipped, so parsing goes on and finds more.
pub fn lex(file: FileId, text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    let mut lexer = Lexer { file, text, bytes: text.as_bytes(), pos: 0, tokens: Vec::new(), diags };
    // A UTF-8 byte order mark is skipped, as Apache does.
    if text.starts_with('\u{feff}') {
        lexer.pos = 3;
    }
    lexer.run();
    let end = Span::new(file, text.len(), text.len());
    lexer.tokens.push(Token { tok: Tok::Eof, span: end, is_bool: false });
    lexer.tokens
}

struct Lexer<'a, 'd> {
    file: FileId,
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diags: &'d mut Diagnostics,
}

impl Lexer<'_, '_> {
    fn peek_at(&self, offset: usize) -> u8 {
        self.bytes.get(self.pos + offset).copied().unwrap_or(0)
    }

    fn span(&self, start: usize) -> Span {
        Span::new(self.file, start, self.pos)
    }

    fn push(&mut self, tok: Tok, start: usize) {
        let span = self.span(start);
        self.tokens.push(Token { tok, span, is_bool: false });
    }

    fn error(&mut self, start: usize, end: usize, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(Span::new(self.file, start, end), message));
    }

    fn run(&mut self) {
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let c = self.bytes[self.pos];
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b'/' if self.peek_at(1) == b'/' => self.skip_line(),
                b'#' => self.skip_line(),
                b'/' if self.peek_at(1) == b'*' => self.block_comment(),
                b':' | b';' | b',' | b'{' | b'}' | b'(' | b')' | b'=' | b'<' | b'>' | b'[' | b']' | b'*' | b'&' => {
                    self.pos += 1;
                    self.push(Tok::Sym(c as char), start);
                }
                b'"' | b'\'' => self.string(c),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.identifier(),
                b'0'..=b'9' | b'+' | b'-' | b'.' => self.number(),
                _ => {
                    let ch = self.text[start..].chars().next().unwrap_or('\u{fffd}');
                    self.pos += ch.len_utf8();
                    self.error(start, self.pos, format!("unexpected character `{}`", ch.escape_debug()));
                }
            }
        }
    }

    fn skip_line(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        // `/**/` and `/***/` are plain comments; `/**` followed by anything else is a doc.
        let is_doc =
            self.peek_at(2) == b'*' && self.peek_at(3) != b'/' && !(self.peek_at(3) == b'*' && self.peek_at(4) == b'/');
        self.pos += 2;
        match self.text[self.pos..].find("*/") {
            Some(len) => {
                let body = &self.text[self.pos..self.pos + len];
                self.pos += len + 2;
                if is_doc {
                    let doc = clean_doc(&body[1..]);
                    self.push(Tok::Doc(doc), start);
                }
            }
            None => {
                self.pos = self.bytes.len();
                self.error(start, start + 2, "unterminated comment: `/*` has no closing `*/`");
            }
        }
    }

    fn string(&mut self, quote: u8) {
        let start = self.pos;
        self.pos += 1;
        let mut value = String::new();
        loop {
            let Some(ch) = self.text[self.pos..].chars().next() else {
                self.error(start, start + 1, "unterminated string: end of file before its closing quote");
                return;
            };
            match ch {
                '\n' => {
                    self.error(start, self.pos, "unterminated string: end of line before its closing quote");
                    return;
                }
                '\\' => {
                    let escape_start = self.pos;
                    self.pos += 1;
                    let Some(next) = self.text[self.pos..].chars().next() else { continue };
                    self.pos += next.len_utf8();
                    match next {
                        'n' => value.push('\n'),
                        'r' => value.push('\r'),
                        't' => value.push('\t'),
                        '"' => value.push('"'),
                        '\'' => value.push('\''),
                        '\\' => value.push('\\'),
                        other => self.error(
                            escape_start,
                            self.pos,
                            format!(
                                "bad escape `\\{}`: Thrift strings take \\n \\r \\t \\\" \\' and \\\\",
                                other.escape_debug()
                            ),
                        ),
                    }
                }
                c if c as u32 == u32::from(quote) => {
                    self.pos += 1;
                    self.push(Tok::Str(value), start);
                    return;
                }
                c => {
                    self.pos += c.len_utf8();
                    value.push(c);
                }
            }
        }
    }

    fn identifier(&mut self) {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek_at(0) {
                b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'0'..=b'9' => self.pos += 1,
                b'.' if matches!(self.peek_at(1), b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'0'..=b'9') => self.pos += 2,
                _ => break,
            }
        }
        let word = &self.text[start..self.pos];
        let (tok, is_bool) = match word {
            "true" => (Tok::Int(1), true),
            "false" => (Tok::Int(0), true),
            _ => (Tok::Ident(word.to_owned()), false),
        };
        let span = self.span(start);
        self.tokens.push(Token { tok, span, is_bool });
    }

    /// `[+-]?[0-9]+`, `[+-]?0x[0-9a-fA-F]+` or `[+-]?[0-9]*(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
    /// the longest that matches, an integer when both do.
    fn number(&mut self) {
        let start = self.pos;
        let mut p = self.pos;
        let sign = matches!(self.peek_at(0), b'+' | b'-');
        if sign {
            p += 1;
        }
        let digit = |i: usize| self.bytes.get(i).is_some_and(u8::is_ascii_digit);
        // Hex.
        if self.bytes.get(p) == Some(&b'0')
            && matches!(self.bytes.get(p + 1), Some(b'x' | b'X'))
            && self.bytes.get(p + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            let digits_start = p + 2;
            let mut end = digits_start;
            while self.bytes.get(end).is_some_and(u8::is_ascii_hexdigit) {
                end += 1;
            }
            self.pos = end;
            let digits = &self.text[digits_start..end];
            let negative = self.bytes[start] == b'-';
            let value =
                i64::from_str_radix(digits, 16).ok().and_then(|v| if negative { v.checked_neg() } else { Some(v) });
            match value {
                Some(v) => self.push(Tok::Int(v), start),
                None => self.error(
                    start,
                    end,
                    format!("integer too big: `{}` does not fit in an i64", &self.text[start..end]),
                ),
            }
            return;
        }
        let int_start = p;
        while digit(p) {
            p += 1;
        }
        let int_end = p;
        let mut is_double = false;
        if self.bytes.get(p) == Some(&b'.') && digit(p + 1) {
            p += 1;
            while digit(p) {
                p += 1;
            }
            is_double = true;
        }
        if matches!(self.bytes.get(p), Some(b'e' | b'E')) {
            let mut q = p + 1;
            if matches!(self.bytes.get(q), Some(b'+' | b'-')) {
                q += 1;
            }
            // `1e10` is a double, but `e10` alone is an identifier: only with digits before.
            if digit(q) && (int_end > int_start || is_double) {
                while digit(q) {
                    q += 1;
                }
                p = q;
                is_double = true;
            }
        }
        if !is_double && int_end == int_start {
            // A lone sign or dot.
            self.pos = start + 1;
            self.error(start, self.pos, format!("unexpected character `{}`", self.bytes[start] as char));
            return;
        }
        self.pos = p;
        let text = &self.text[start..p];
        if is_double {
            // Rust's parser takes what the grammar allows, a leading `+` included.
            match text.parse::<f64>() {
                Ok(v) => self.push(Tok::Double(v), start),
                Err(_) => self.error(start, p, format!("malformed number `{text}`")),
            }
        } else {
            match text.parse::<i64>() {
                Ok(v) => self.push(Tok::Int(v), start),
                Err(_) => {
                    self.error(start, p, format!("integer too big: `{text}` does not fit in an i64"));
                    self.push(Tok::Int(0), start);
                }
            }
        }
    }
}

/// The text of a doc comment without its `/**`, `*/`, leading stars and common
/// indentation, as Apache's `clean_up_doctext` leaves it.
fn clean_doc(body: &str) -> String {
    let body = body.replace('\r', "");
    let mut lines: Vec<&str> = body.split('\n').collect();
    // Stars at the start of every line after the first (` * text`) are decoration.
    let starred = lines.iter().skip(1).filter(|l| !l.trim().is_empty()).all(|l| l.trim_start().starts_with('*'));
    let mut cleaned: Vec<String> = Vec::with_capacity(lines.len());
    for (i, line) in lines.drain(..).enumerate() {
        let line = if i == 0 {
            line.trim_start()
        } else if starred {
            let t = line.trim_start();
            let t = t.strip_prefix('*').unwrap_or(t);
            t.strip_prefix(' ').unwrap_or(t)
        } else {
            line
        };
        cleaned.push(line.trim_end().to_owned());
    }
    // Common indentation of the lines after the first, when they were not starred.
    if !starred {
        let indent = cleaned
            .iter()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        for line in cleaned.iter_mut().skip(1) {
            if line.len() >= indent {
                *line = line[indent..].to_owned();
            }
        }
    }
    while cleaned.first().is_some_and(|l| l.trim().is_empty()) {
        cleaned.remove(0);
    }
    while cleaned.last().is_some_and(|l| l.trim().is_empty()) {
        cleaned.pop();
    }
    cleaned.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> (Vec<Tok>, Diagnostics) {
        let mut diags = Diagnostics::new();
        let tokens = lex(FileId(0), text, &mut diags);
        (tokens.into_iter().map(|t| t.tok).collect(), diags)
    }

    #[test]
    fn numbers_as_apache_cuts_them() {
        let (t, d) = toks("1 -2 +3 0x1F -0x1f 1.5 1e10 -1e10 085.2355 098325 .5 e10 1.7e+308");
        assert!(d.is_empty());
        assert_eq!(
            t,
            [
                Tok::Int(1),
                Tok::Int(-2),
                Tok::Int(3),
                Tok::Int(31),
                Tok::Int(-31),
                Tok::Double(1.5),
                Tok::Double(1e10),
                Tok::Double(-1e10),
                Tok::Double(85.2355),
                Tok::Int(98325),
                Tok::Double(0.5),
                Tok::Ident("e10".into()),
                Tok::Double(1.7e308),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn i64_bounds() {
        let (t, d) = toks("9223372036854775807 -9223372036854775808");
        assert!(d.is_empty());
        assert_eq!(t[..2], [Tok::Int(i64::MAX), Tok::Int(i64::MIN)]);
        let (_, d) = toks("9876543210987654321");
        assert!(d.iter().next().unwrap().message.contains("integer too big"));
    }

    #[test]
    fn identifiers_keep_dots_and_bools_are_ints() {
        let (t, _) = toks("shared.Thing a.1 true false x.");
        assert_eq!(t[0], Tok::Ident("shared.Thing".into()));
        assert_eq!(t[1], Tok::Ident("a.1".into()));
        assert_eq!(t[2..4], [Tok::Int(1), Tok::Int(0)]);
        assert_eq!(t[4], Tok::Ident("x".into()));
    }

    #[test]
    fn strings_and_escapes() {
        let (t, d) = toks(r#""a\"b" 'c\'d' "\t\n\\""#);
        assert!(d.is_empty());
        assert_eq!(t[..3], [Tok::Str("a\"b".into()), Tok::Str("c'd".into()), Tok::Str("\t\n\\".into())]);
        let (_, d) = toks(r#""bad \q""#);
        assert!(d.iter().next().unwrap().message.contains("bad escape"));
        let (_, d) = toks("\"open\nx");
        assert!(d.iter().next().unwrap().message.contains("unterminated string"));
    }

    #[test]
    fn comments_and_docs() {
        let (t, d) = toks("// a\n# b\n/* c */ /**/ /***/ /** The doc.\n  * Second line.\n  */ x");
        assert!(d.is_empty());
        assert_eq!(t, [Tok::Doc("The doc.\nSecond line.".into()), Tok::Ident("x".into()), Tok::Eof]);
        let (_, d) = toks("/* open");
        assert!(d.iter().next().unwrap().message.contains("unterminated comment"));
    }

    #[test]
    fn stray_characters_are_errors_not_panics() {
        let (t, d) = toks("@ é - . x");
        assert_eq!(d.len(), 4);
        assert_eq!(t, [Tok::Ident("x".into()), Tok::Eof]);
    }
}
