//! Collects every error found in one input, so a user sees all their mistakes at once.

use std::fmt::Display;

use quote::ToTokens;

/// Gathers `syn::Error`s while a derive input is parsed and checked.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error spanning `tokens`.
    pub fn error(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an existing error.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_iter();
        let Some(mut first) = errors.next() else { return Ok(()) };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}
