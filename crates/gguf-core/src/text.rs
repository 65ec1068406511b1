//! GGUF strings: bytes that should be UTF-8 but are not always (real token lists hold lone bytes).
//! They are kept as bytes and shown with invalid bytes escaped, never refused.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// A GGUF string, kept byte for byte.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct GgufString(Vec<u8>);

impl GgufString {
    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The text, when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        core::str::from_utf8(&self.0).ok()
    }

    /// The text with invalid bytes written as `\xNN` (see [`Escaped`]).
    pub fn escaped(&self) -> Escaped<'_> {
        Escaped(&self.0)
    }
}

impl From<Vec<u8>> for GgufString {
    fn from(bytes: Vec<u8>) -> GgufString {
        GgufString(bytes)
    }
}

impl From<&str> for GgufString {
    fn from(s: &str) -> GgufString {
        GgufString(s.into())
    }
}

impl From<String> for GgufString {
    fn from(s: String) -> GgufString {
        GgufString(s.into_bytes())
    }
}

impl PartialEq<str> for GgufString {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl fmt::Debug for GgufString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.escaped())
    }
}

impl fmt::Display for GgufString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.escaped().fmt(f)
    }
}

/// Shows bytes as text: valid UTF-8 as is, each invalid byte as `\xNN`. Backslashes stay single,
/// so the escape is for reading, not a reversible encoding; [`GgufString::as_str`] tells the two apart.
#[derive(Clone, Copy)]
pub struct Escaped<'a>(pub &'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            f.write_str(chunk.valid())?;
            for b in chunk.invalid() {
                write!(f, "\\x{b:02X}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn escapes_only_invalid_bytes() {
        assert_eq!(
            Escaped(b"ok\xff\xfe\xc3(bad").to_string(),
            "ok\\xFF\\xFE\\xC3(bad"
        );
        assert_eq!(Escaped("é▁".as_bytes()).to_string(), "é▁");
        assert_eq!(Escaped(b"\xed\xa0\x80").to_string(), "\\xED\\xA0\\x80");
        assert_eq!(GgufString::from(b"\xc0\xaf".to_vec()).as_str(), None);
    }
}
