//! The schema's small enums: [`TensorType`] (with element sizes), [`Activation`],
//! [`Padding`].

use core::fmt;

/// Declares [`TensorType`] with its schema value, name and bits per element.
macro_rules! tensor_types {
    ($($variant:ident = $value:literal => $name:literal, $bits:expr;)*) => {
        /// The type of a tensor's elements (`TensorType` in the schema, every value).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        #[allow(missing_docs)] // the schema names say what each is
        pub enum TensorType {
            $($variant = $value,)*
        }

        impl TensorType {
            /// The type with schema value `value`, if the schema defines it.
            #[must_use]
            pub const fn from_code(value: i8) -> Option<Self> {
                match value {
                    $($value => Some(Self::$variant),)*
                    _ => None,
                }
            }

            /// The schema's name (`"FLOAT32"`).
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }

            /// Bits per element of a constant buffer; `None` for STRING (variable length),
            /// RESOURCE and VARIANT (no constant data).
            #[must_use]
            pub const fn bits(self) -> Option<u32> {
                match self {
                    $(Self::$variant => $bits,)*
                }
            }
        }
    };
}

tensor_types! {
    Float32 = 0 => "FLOAT32", Some(32);
    Float16 = 1 => "FLOAT16", Some(16);
    Int32 = 2 => "INT32", Some(32);
    Uint8 = 3 => "UINT8", Some(8);
    Int64 = 4 => "INT64", Some(64);
    String = 5 => "STRING", None;
    Bool = 6 => "BOOL", Some(8);
    Int16 = 7 => "INT16", Some(16);
    Complex64 = 8 => "COMPLEX64", Some(64);
    Int8 = 9 => "INT8", Some(8);
    Float64 = 10 => "FLOAT64", Some(64);
    Complex128 = 11 => "COMPLEX128", Some(128);
    Uint64 = 12 => "UINT64", Some(64);
    Resource = 13 => "RESOURCE", None;
    Variant = 14 => "VARIANT", None;
    Uint32 = 15 => "UINT32", Some(32);
    Uint16 = 16 => "UINT16", Some(16);
    Int4 = 17 => "INT4", Some(4);
    Bfloat16 = 18 => "BFLOAT16", Some(16);
    Int2 = 19 => "INT2", Some(2);
    Uint4 = 20 => "UINT4", Some(4);
    Float8E4m3fn = 21 => "FLOAT8_E4M3FN", Some(8);
    Float8E5m2 = 22 => "FLOAT8_E5M2", Some(8);
}

impl TensorType {
    /// Whether this is STRING. Always false without the `strings` feature, where no loaded
    /// model has a STRING tensor: written so, the string paths compile away.
    #[must_use]
    pub fn is_string(self) -> bool {
        cfg!(feature = "strings") && self == Self::String
    }

    /// Bytes a constant of `elements` elements takes: sub-byte types (INT4, UINT4, INT2) are
    /// packed, as TensorFlow Lite's converter writes them, so the count rounds up. `None` for
    /// types without fixed-size elements or on overflow.
    #[must_use]
    pub fn bytes_for(self, elements: u64) -> Option<u64> {
        let bits = u64::from(self.bits()?);
        Some(elements.checked_mul(bits)?.div_ceil(8))
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fused activation function (`ActivationFunctionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Activation {
    /// None.
    None,
    /// `max(x, 0)`.
    Relu,
    /// `clamp(x, -1, 1)`.
    ReluN1To1,
    /// `clamp(x, 0, 6)`.
    Relu6,
    /// `tanh(x)`.
    Tanh,
    /// The sign bit.
    SignBit,
    /// A value this schema does not define.
    Other(i8),
}

impl Activation {
    /// The activation of schema value `v`.
    #[must_use]
    pub fn from_code(v: i8) -> Self {
        match v {
            0 => Self::None,
            1 => Self::Relu,
            2 => Self::ReluN1To1,
            3 => Self::Relu6,
            4 => Self::Tanh,
            5 => Self::SignBit,
            v => Self::Other(v),
        }
    }
}

impl fmt::Display for Activation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("NONE"),
            Self::Relu => f.write_str("RELU"),
            Self::ReluN1To1 => f.write_str("RELU_N1_TO_1"),
            Self::Relu6 => f.write_str("RELU6"),
            Self::Tanh => f.write_str("TANH"),
            Self::SignBit => f.write_str("SIGN_BIT"),
            Self::Other(v) => write!(f, "ACTIVATION#{v}"),
        }
    }
}

/// Convolution and pooling padding (`Padding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Output as large as the input divided by the stride.
    Same,
    /// Only positions where the filter fits.
    Valid,
    /// A value this schema does not define.
    Other(i8),
}

impl Padding {
    /// The padding of schema value `v`.
    #[must_use]
    pub fn from_code(v: i8) -> Self {
        match v {
            0 => Self::Same,
            1 => Self::Valid,
            v => Self::Other(v),
        }
    }
}

impl fmt::Display for Padding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Same => f.write_str("SAME"),
            Self::Valid => f.write_str("VALID"),
            Self::Other(v) => write!(f, "PADDING#{v}"),
        }
    }
}
