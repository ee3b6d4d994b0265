//! What a cursor's columns hold: a [`Schema`] borrowed from the caller (no allocation), the
//! [`ColumnKind`] of each column, and the [`Scalar`] values scalar columns yield.

use super::error::CursorError;

/// The type of a scalar column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ScalarType {
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `i64`.
    I64,
    /// `u64`.
    U64,
    /// `bool`.
    Bool,
}

/// One scalar value, tagged with its type. Scalars are `Copy`, so a getter returns them
/// rather than filling a caller's slot; [`RowCursor::get_f32`](super::RowCursor::get_f32) and
/// its siblings check the type for the caller.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Scalar {
    /// An `f32`.
    F32(f32),
    /// An `f64`.
    F64(f64),
    /// An `i64`.
    I64(i64),
    /// A `u64`.
    U64(u64),
    /// A `bool`.
    Bool(bool),
}

impl Scalar {
    /// The value's type.
    #[inline]
    pub const fn scalar_type(&self) -> ScalarType {
        match self {
            Scalar::F32(_) => ScalarType::F32,
            Scalar::F64(_) => ScalarType::F64,
            Scalar::I64(_) => ScalarType::I64,
            Scalar::U64(_) => ScalarType::U64,
            Scalar::Bool(_) => ScalarType::Bool,
        }
    }
}

/// What a column holds in every row.
///
/// Both vector kinds are read with the same getter into a
/// [`VBuffer`](crate::sparse::VBuffer), which holds either representation; the kind says
/// which one the source usually produces, so a consumer can pick a storage of the right
/// capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ColumnKind {
    /// One scalar of the given type.
    Scalar(ScalarType),
    /// An `f32` vector of logical length `len`, usually dense.
    DenseVector {
        /// The logical length of every vector in the column.
        len: usize,
    },
    /// An `f32` vector of logical length `len`, usually sparse.
    SparseVector {
        /// The logical length of every vector in the column.
        len: usize,
    },
    /// A byte string, read into a [`TString`](crate::tstring::TString).
    String,
}

impl ColumnKind {
    /// The getter shape that reads this column.
    #[inline]
    pub const fn value_type(&self) -> ValueType {
        match *self {
            ColumnKind::Scalar(t) => ValueType::Scalar(t),
            ColumnKind::DenseVector { .. } | ColumnKind::SparseVector { .. } => ValueType::Vector,
            ColumnKind::String => ValueType::String,
        }
    }
}

/// What a getter asks for: the shape of value it fills. A column of kind `k` answers a getter
/// asking for `k.value_type()` and, if it is a scalar column, one asking for
/// [`AnyScalar`](Self::AnyScalar).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ValueType {
    /// A scalar of the given type.
    Scalar(ScalarType),
    /// A scalar of any type (the untyped [`get_scalar`](super::RowCursor::get_scalar)).
    AnyScalar,
    /// An `f32` vector, dense or sparse.
    Vector,
    /// A byte string.
    String,
}

/// One column: a name and a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Column<'a> {
    /// The column's name; names are for people and lookups, getters go by index.
    pub name: &'a str,
    /// What every row holds in this column.
    pub kind: ColumnKind,
}

impl<'a> Column<'a> {
    /// A column named `name` of kind `kind`.
    #[inline]
    pub const fn new(name: &'a str, kind: ColumnKind) -> Self {
        Column { name, kind }
    }
}

/// A cursor's columns, borrowed from wherever they are declared (often a `static` or `const`
/// array), so describing a table allocates nothing. Every lookup by index is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Schema<'a> {
    columns: &'a [Column<'a>],
}

impl<'a> Schema<'a> {
    /// The schema of these columns, in order.
    #[inline]
    pub const fn new(columns: &'a [Column<'a>]) -> Self {
        Schema { columns }
    }

    /// The columns, in order.
    #[inline]
    pub const fn columns(&self) -> &'a [Column<'a>] {
        self.columns
    }

    /// Number of columns.
    #[inline]
    pub const fn len(&self) -> usize {
        self.columns.len()
    }

    /// Whether there are no columns.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Column `col`, or [`CursorError::ColumnOutOfRange`].
    #[inline]
    pub fn column(&self, col: usize) -> Result<&'a Column<'a>, CursorError> {
        self.columns.get(col).ok_or(CursorError::ColumnOutOfRange {
            col,
            columns: self.columns.len(),
        })
    }

    /// Index of the first column named `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// The kind of column `col`, checked to answer a getter asking for `asked`: what every
    /// getter calls before touching the row.
    ///
    /// Errors: [`CursorError::ColumnOutOfRange`], [`CursorError::WrongType`].
    pub fn check_column(&self, col: usize, asked: ValueType) -> Result<ColumnKind, CursorError> {
        let found = self.column(col)?.kind;
        let answers = match (asked, found) {
            (ValueType::AnyScalar, ColumnKind::Scalar(_)) => true,
            _ => found.value_type() == asked,
        };
        if answers {
            Ok(found)
        } else {
            Err(CursorError::WrongType { col, asked, found })
        }
    }
}
