//! The ggml tensor types (`enum ggml_type`) and the `general.file_type` labels (`enum llama_ftype`).
//!
//! Both are open sets: new quantizations appear every few months and forks use their own ids, so
//! both are newtypes over the raw id rather than closed enums. An id this table does not know is
//! carried through the parse; its size and bits per weight are simply unknown.

use core::fmt;

/// A ggml tensor type id, e.g. `GgmlType::Q4_K`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GgmlType(pub u32);

/// Whether ggml still reads a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeStatus {
    /// ggml reads and writes it.
    Active,
    /// ggml keeps the id as a placeholder with block size 0 and refuses files that use it.
    Removed,
}

struct TypeInfo {
    name: &'static str,
    block_size: u32,
    type_size: u32,
    status: TypeStatus,
}

const fn active(name: &'static str, block_size: u32, type_size: u32) -> TypeInfo {
    TypeInfo {
        name,
        block_size,
        type_size,
        status: TypeStatus::Active,
    }
}

const fn removed(name: &'static str, block_size: u32, type_size: u32) -> TypeInfo {
    TypeInfo {
        name,
        block_size,
        type_size,
        status: TypeStatus::Removed,
    }
}

/// ggml's `type_traits[]` (ggml-org/ggml `src/ggml.c`, `GGML_TYPE_COUNT = 43`). Removed ids keep
/// their historical geometry so that old files still get a size, marked as removed.
const TYPES: [TypeInfo; 43] = [
    active("F32", 1, 4),
    active("F16", 1, 2),
    active("Q4_0", 32, 18),
    active("Q4_1", 32, 20),
    removed("Q4_2", 16, 10),
    removed("Q4_3", 16, 12),
    active("Q5_0", 32, 22),
    active("Q5_1", 32, 24),
    active("Q8_0", 32, 34),
    // 36 bytes (fp16 d, fp16 s, 32 × i8): gguf-py and huggingface.js still say 40, the 2023 layout.
    active("Q8_1", 32, 36),
    active("Q2_K", 256, 84),
    active("Q3_K", 256, 110),
    active("Q4_K", 256, 144),
    active("Q5_K", 256, 176),
    active("Q6_K", 256, 210),
    active("Q8_K", 256, 292),
    active("IQ2_XXS", 256, 66),
    active("IQ2_XS", 256, 74),
    active("IQ3_XXS", 256, 98),
    active("IQ1_S", 256, 50),
    active("IQ4_NL", 32, 18),
    active("IQ3_S", 256, 110),
    active("IQ2_S", 256, 82),
    active("IQ4_XS", 256, 136),
    active("I8", 1, 1),
    active("I16", 1, 2),
    active("I32", 1, 4),
    active("I64", 1, 8),
    active("F64", 1, 8),
    active("IQ1_M", 256, 56),
    active("BF16", 1, 2),
    removed("Q4_0_4_4", 32, 18),
    removed("Q4_0_4_8", 32, 18),
    removed("Q4_0_8_8", 32, 18),
    active("TQ1_0", 256, 54),
    active("TQ2_0", 256, 66),
    removed("IQ4_NL_4_4", 32, 18),
    removed("IQ4_NL_4_8", 32, 18),
    removed("IQ4_NL_8_8", 32, 18),
    active("MXFP4", 32, 17),
    active("NVFP4", 64, 36),
    active("Q1_0", 128, 18),
    active("Q2_0", 64, 18),
];

macro_rules! type_consts {
    ($($name:ident = $id:literal),* $(,)?) => {
        impl GgmlType {
            $(
                #[allow(missing_docs)]
                pub const $name: GgmlType = GgmlType($id);
            )*
        }
    };
}

type_consts! {
    F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q4_2 = 4, Q4_3 = 5, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
    Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15, IQ2_XXS = 16, IQ2_XS = 17,
    IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23, I8 = 24, I16 = 25,
    I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30, Q4_0_4_4 = 31, Q4_0_4_8 = 32, Q4_0_8_8 = 33,
    TQ1_0 = 34, TQ2_0 = 35, IQ4_NL_4_4 = 36, IQ4_NL_4_8 = 37, IQ4_NL_8_8 = 38, MXFP4 = 39, NVFP4 = 40,
    Q1_0 = 41, Q2_0 = 42,
}

impl GgmlType {
    /// Every id ggml has assigned, in order (`GGML_TYPE_COUNT` = 43).
    pub fn all() -> impl Iterator<Item = GgmlType> {
        (0..TYPES.len() as u32).map(GgmlType)
    }

    fn info(self) -> Option<&'static TypeInfo> {
        TYPES.get(self.0 as usize)
    }

    /// ggml's name (`"Q4_K"`), or `None` for an id ggml never assigned.
    pub fn name(self) -> Option<&'static str> {
        self.info().map(|t| t.name)
    }

    /// Whether ggml still reads it; `None` for an unknown id.
    pub fn status(self) -> Option<TypeStatus> {
        self.info().map(|t| t.status)
    }

    /// Elements per block (1 for plain types, 32 or 256 for most quantizations).
    pub fn block_size(self) -> Option<u32> {
        self.info().map(|t| t.block_size)
    }

    /// Bytes per block.
    pub fn type_size(self) -> Option<u32> {
        self.info().map(|t| t.type_size)
    }

    /// Exact bits per weight of the type itself: `8 × type_size / block_size`.
    pub fn bits_per_weight(self) -> Option<f64> {
        let t = self.info()?;
        bits_per_weight(t.type_size.into(), t.block_size.into())
    }

    /// Whether the type stores quantized blocks rather than plain numbers.
    pub fn is_quantized(self) -> bool {
        self.block_size().is_some_and(|b| b > 1)
    }

    /// Bytes taken by `n_elements` of this type, when known and when they fill whole blocks
    /// of the first dimension `ne0`.
    pub fn bytes_for(self, ne0: u64, n_elements: u64) -> Option<u64> {
        let t = self.info()?;
        let block = u64::from(t.block_size);
        if ne0 % block != 0 {
            return None;
        }
        (n_elements / block).checked_mul(u64::from(t.type_size))
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "unknown type {}", self.0),
        }
    }
}

/// The `general.file_type` value: llama.cpp's `enum llama_ftype` ("what the file says it is").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileType(pub u32);

/// `llama_ftype` names without the `LLAMA_FTYPE_` prefix (ggml-org/llama.cpp `include/llama.h`).
const FILE_TYPES: [&str; 42] = [
    "ALL_F32",
    "MOSTLY_F16",
    "MOSTLY_Q4_0",
    "MOSTLY_Q4_1",
    "MOSTLY_Q4_1_SOME_F16",
    "MOSTLY_Q4_2",
    "MOSTLY_Q4_3",
    "MOSTLY_Q8_0",
    "MOSTLY_Q5_0",
    "MOSTLY_Q5_1",
    "MOSTLY_Q2_K",
    "MOSTLY_Q3_K_S",
    "MOSTLY_Q3_K_M",
    "MOSTLY_Q3_K_L",
    "MOSTLY_Q4_K_S",
    "MOSTLY_Q4_K_M",
    "MOSTLY_Q5_K_S",
    "MOSTLY_Q5_K_M",
    "MOSTLY_Q6_K",
    "MOSTLY_IQ2_XXS",
    "MOSTLY_IQ2_XS",
    "MOSTLY_Q2_K_S",
    "MOSTLY_IQ3_XS",
    "MOSTLY_IQ3_XXS",
    "MOSTLY_IQ1_S",
    "MOSTLY_IQ4_NL",
    "MOSTLY_IQ3_S",
    "MOSTLY_IQ3_M",
    "MOSTLY_IQ2_S",
    "MOSTLY_IQ2_M",
    "MOSTLY_IQ4_XS",
    "MOSTLY_IQ1_M",
    "MOSTLY_BF16",
    "MOSTLY_Q4_0_4_4",
    "MOSTLY_Q4_0_4_8",
    "MOSTLY_Q4_0_8_8",
    "MOSTLY_TQ1_0",
    "MOSTLY_TQ2_0",
    "MOSTLY_MXFP4_MOE",
    "MOSTLY_NVFP4",
    "MOSTLY_Q1_0",
    "MOSTLY_Q2_0",
];

impl FileType {
    /// The `llama_ftype` name (`"MOSTLY_Q4_K_M"`), or `None` for an id llama.cpp never assigned.
    pub fn name(self) -> Option<&'static str> {
        match self.0 {
            1024 => Some("GUESSED"),
            id => FILE_TYPES.get(id as usize).copied(),
        }
    }

    /// The name as people say it: `"Q4_K_M"`, `"F16"`, `"ALL_F32"`.
    pub fn label(self) -> Option<&'static str> {
        self.name().map(|n| n.strip_prefix("MOSTLY_").unwrap_or(n))
    }

    /// The tensor type a file of this label mostly holds (`Q4_K_M` → `Q4_K`), for comparing the
    /// label with the tensors. `None` for labels that name no single type (`GUESSED`).
    pub fn main_tensor_type(self) -> Option<GgmlType> {
        let label = self.label()?;
        // llama.cpp's quantizer picks these defaults (`llama_model_quantize_impl`); the rest
        // name their type, with a K-quant size suffix (_S, _M, _L) dropped.
        let base = match label {
            "ALL_F32" => "F32",
            "Q4_1_SOME_F16" => "Q4_1",
            "MXFP4_MOE" => "MXFP4",
            "Q2_K_S" => "Q2_K",
            "IQ3_XS" | "IQ3_M" => "IQ3_S",
            "IQ2_S" => "IQ2_XS",
            "IQ2_M" => "IQ2_S",
            "GUESSED" => return None,
            other => match other.rsplit_once('_') {
                Some((k_quant, "S" | "M" | "L")) if k_quant.ends_with("_K") => k_quant,
                _ => other,
            },
        };
        GgmlType::all().find(|t| t.name() == Some(base))
    }
}

impl fmt::Display for FileType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.label() {
            Some(label) => f.write_str(label),
            None => write!(f, "unknown file type {}", self.0),
        }
    }
}

/// `8 × bytes / elements`, `None` for 0 elements: the one formula for bits per weight — of a
/// type, a tensor, a layer, a file.
pub(crate) fn bits_per_weight(bytes: u64, elements: u64) -> Option<f64> {
    (elements > 0).then(|| 8.0 * bytes as f64 / elements as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn geometry_matches_ggml() {
        assert_eq!(GgmlType::Q8_1.type_size(), Some(36));
        assert_eq!(GgmlType::IQ4_NL.block_size(), Some(32));
        assert_eq!(GgmlType::Q2_0.bits_per_weight(), Some(2.25));
        assert_eq!(GgmlType::IQ2_S.bits_per_weight(), Some(2.5625));
        assert_eq!(GgmlType(43).name(), None);
        assert_eq!(GgmlType(139).to_string(), "unknown type 139");
        assert_eq!(GgmlType::Q4_0_4_4.status(), Some(TypeStatus::Removed));
        assert_eq!(GgmlType::all().count(), 43);
    }

    #[test]
    fn bytes_need_whole_blocks() {
        assert_eq!(GgmlType::Q4_K.bytes_for(256, 512), Some(288));
        assert_eq!(GgmlType::Q4_K.bytes_for(100, 100), None);
        assert_eq!(GgmlType(99).bytes_for(1, 1), None);
    }

    #[test]
    fn file_type_labels() {
        assert_eq!(FileType(15).label(), Some("Q4_K_M"));
        assert_eq!(FileType(15).main_tensor_type(), Some(GgmlType::Q4_K));
        assert_eq!(FileType(7).main_tensor_type(), Some(GgmlType::Q8_0));
        assert_eq!(FileType(0).main_tensor_type(), Some(GgmlType::F32));
        assert_eq!(FileType(38).main_tensor_type(), Some(GgmlType::MXFP4));
        assert_eq!(FileType(27).main_tensor_type(), Some(GgmlType::IQ3_S));
        assert_eq!(FileType(28).main_tensor_type(), Some(GgmlType::IQ2_XS));
        assert_eq!(FileType(29).main_tensor_type(), Some(GgmlType::IQ2_S));
        assert_eq!(FileType(13).main_tensor_type(), Some(GgmlType::Q3_K));
        assert_eq!(FileType(19).main_tensor_type(), Some(GgmlType::IQ2_XXS));
        assert_eq!(FileType(21).main_tensor_type(), Some(GgmlType::Q2_K));
        assert_eq!(FileType(24).main_tensor_type(), Some(GgmlType::IQ1_S));
        assert_eq!(FileType(1024).label(), Some("GUESSED"));
        assert_eq!(FileType(1024).main_tensor_type(), None);
        assert_eq!(FileType(500).to_string(), "unknown file type 500");
    }
}
