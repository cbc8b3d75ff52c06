//! `rename_all`: the case conversions of IDL names, as serde spells them.
//!
//! Only the rules that give valid Thrift identifiers (kebab-case would not).

/// One `rename_all` rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
}

impl RenameRule {
    /// The accepted spellings, for the error message.
    pub const NAMES: &'static str =
        "\"lowercase\", \"UPPERCASE\", \"PascalCase\", \"camelCase\", \"snake_case\", \"SCREAMING_SNAKE_CASE\"";

    pub fn parse(s: &str) -> Option<RenameRule> {
        Some(match s {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            _ => return None,
        })
    }

    /// `name` (a Rust field in snake_case or a variant in PascalCase) in this case.
    pub fn apply(self, name: &str) -> String {
        let words = words(name);
        match self {
            RenameRule::Lower => words.concat(),
            RenameRule::Upper => words.concat().to_uppercase(),
            RenameRule::Snake => words.join("_"),
            RenameRule::ScreamingSnake => words.join("_").to_uppercase(),
            RenameRule::Pascal => words.iter().map(|w| capitalize(w)).collect(),
            RenameRule::Camel => {
                let mut out = String::new();
                for (i, w) in words.iter().enumerate() {
                    out.push_str(&if i == 0 { w.clone() } else { capitalize(w) });
                }
                out
            }
        }
    }
}

/// The lowercase words of a snake_case or PascalCase name.
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in name.chars() {
        if c == '_' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else if c.is_uppercase() && !current.is_empty() {
            words.push(std::mem::take(&mut current));
            current.extend(c.to_lowercase());
        } else {
            current.extend(c.to_lowercase());
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule;

    #[test]
    fn converts_fields_and_variants() {
        assert_eq!(RenameRule::Camel.apply("user_id"), "userId");
        assert_eq!(RenameRule::Pascal.apply("user_id"), "UserId");
        assert_eq!(RenameRule::ScreamingSnake.apply("NotFound"), "NOT_FOUND");
        assert_eq!(RenameRule::Snake.apply("NotFound"), "not_found");
        assert_eq!(RenameRule::Lower.apply("NotFound"), "notfound");
        assert_eq!(RenameRule::Upper.apply("user_id"), "USERID");
    }
}
