//! Byte order, chosen at run time (gimli's `RunTimeEndian`): one copy of the parsing code serves both.

/// The byte order of a GGUF file.
///
/// GGUF has no byte-order marker: a big-endian file is recognised by its version field reading
/// as a number whose low 16 bits are zero (`0x0300_0000` for version 3), so the order is inferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Little-endian, what every mainstream writer produces.
    Little,
    /// Big-endian, inferred from the version field (written by `gguf-convert-endian` for s390x).
    Big,
}

macro_rules! read_fn {
    ($name:ident, $ty:ty, $n:literal) => {
        #[doc = concat!("The `", stringify!($ty), "` these bytes hold in this byte order.")]
        #[inline]
        pub fn $name(self, b: [u8; $n]) -> $ty {
            match self {
                Endian::Little => <$ty>::from_le_bytes(b),
                Endian::Big => <$ty>::from_be_bytes(b),
            }
        }
    };
}

impl Endian {
    read_fn!(u16, u16, 2);
    read_fn!(i16, i16, 2);
    read_fn!(u32, u32, 4);
    read_fn!(i32, i32, 4);
    read_fn!(u64, u64, 8);
    read_fn!(i64, i64, 8);
    read_fn!(f32, f32, 4);
    read_fn!(f64, f64, 8);

    /// `"little"` or `"big"`, as in the JSON report.
    pub fn name(self) -> &'static str {
        match self {
            Endian::Little => "little",
            Endian::Big => "big",
        }
    }
}
