//! Tests of row ids and cursors: ML.NET's id derivations against values computed
//! independently (Python, exact 64-bit masking), the contract every cursor keeps (fused,
//! batches non-decreasing, unique ids, consecutive positions) over well-behaved and
//! misbehaving inputs, and each adapter's own promises.

extern crate std;

use std::string::String;
use std::vec;
use std::vec::Vec;

use core::num::NonZeroU64;

use proptest::prelude::*;

use super::*;
use crate::error::CapacityError;
use crate::sparse::{InlineVBuffer, SparseError, StorageMut, VBuffer};
use crate::tstring::{StringHeap, TString, TStringError};

/// Largest generated table; small under Miri, which is slow.
const MAX_ROWS: u64 = if cfg!(miri) { 12 } else { 200 };

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 128 });
    if cfg!(miri) {
        config.failure_persistence = None;
    }
    config
}

// ---------------------------------------------------------------------------------------
// Fixtures

/// A source's own error next to the shared ones, as a real decoder would have.
#[derive(Debug, Clone, Copy, PartialEq)]
enum TestError {
    Cursor(CursorError),
    Decode { row: u64 },
}

impl From<CursorError> for TestError {
    fn from(e: CursorError) -> Self {
        TestError::Cursor(e)
    }
}

const COLUMNS: [Column<'static>; 4] = [
    Column::new("value", ColumnKind::Scalar(ScalarType::F32)),
    Column::new("tag", ColumnKind::Scalar(ScalarType::U64)),
    Column::new("vec", ColumnKind::DenseVector { len: 4 }),
    Column::new("text", ColumnKind::String),
];

/// Row `row` of a test table: `value` is the row number, so any cursor's output names the
/// table row it came from.
#[derive(Debug, Clone)]
struct Rec {
    row: u64,
    tag: u64,
    text: String,
    /// Reading `value` fails with a decode error.
    bad: bool,
}

impl Rec {
    fn new(row: u64, tag: u64) -> Self {
        Rec {
            row,
            tag,
            text: std::format!("row {row}"),
            bad: false,
        }
    }
}

impl Row for Rec {
    type Error = TestError;

    fn get_scalar(&self, col: usize) -> Result<Scalar, TestError> {
        match col {
            0 if self.bad => Err(TestError::Decode { row: self.row }),
            0 => Ok(Scalar::F32(self.row as f32)),
            1 => Ok(Scalar::U64(self.tag)),
            _ => Err(CursorError::ColumnOutOfRange { col, columns: 4 }.into()),
        }
    }

    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        _col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), TestError> {
        let mut ed = dst.edit(4, 4).map_err(CursorError::from)?;
        ed.values()
            .copy_from_slice(&[self.row as f32, 1.0, 2.0, 3.0]);
        ed.commit().map_err(|e| CursorError::from(e.error))?;
        Ok(())
    }

    fn get_string<H: StringHeap>(
        &self,
        _col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), TestError> {
        dst.copy_reusing(self.text.as_bytes())
            .map_err(CursorError::from)?;
        Ok(())
    }
}

fn recs(n: u64) -> Vec<Rec> {
    (0..n).map(|r| Rec::new(r, r.wrapping_mul(7) % 5)).collect()
}

fn table(recs: &[Rec]) -> RowSlice<'_, Rec> {
    RowSlice::new(Schema::new(&COLUMNS), recs)
}

type Src<'a> = SliceCursor<RowSlice<'a, Rec>>;

/// A cursor that breaks the fused contract: after `n` rows and one `Ok(false)` it yields
/// rows again, and it can fail once at call `fail_at`.
struct Flaky {
    recs: Vec<Rec>,
    calls: u64,
    fail_at: Option<u64>,
    current: Option<u64>,
}

impl Flaky {
    fn new(n: u64, fail_at: Option<u64>) -> Self {
        Flaky {
            recs: recs(n + 8),
            calls: 0,
            fail_at,
            current: None,
        }
    }

    fn rec(&self) -> Result<&Rec, CursorError> {
        let row = self.current.ok_or(CursorError::Finished)?;
        self.recs.get(row as usize).ok_or(CursorError::Finished)
    }
}

impl RowCursor for Flaky {
    type Error = TestError;

    fn schema(&self) -> Schema<'_> {
        Schema::new(&COLUMNS)
    }

    fn move_next(&mut self) -> Result<bool, TestError> {
        let call = self.calls;
        self.calls += 1;
        if self.fail_at == Some(call) {
            self.current = None;
            return Err(TestError::Decode { row: call });
        }
        let n = self.recs.len() as u64 - 8;
        if call == n {
            self.current = None;
            return Ok(false);
        }
        // Past the end it keeps going: exactly what an adapter must not pass on.
        self.current = Some(call.min(n + 7));
        Ok(true)
    }

    fn batch(&self) -> u64 {
        self.calls / 3
    }

    fn position(&self) -> Option<u64> {
        self.current
    }

    fn id(&self) -> Result<RowId, CursorError> {
        Ok(RowId::from_position(self.rec()?.row))
    }

    fn get_scalar(&self, col: usize) -> Result<Scalar, TestError> {
        self.schema().check_column(col, ValueType::AnyScalar)?;
        self.rec()?.get_scalar(col)
    }

    fn get_vector<S: StorageMut<Elem = f32>>(
        &self,
        col: usize,
        dst: &mut VBuffer<S>,
    ) -> Result<(), TestError> {
        self.schema().check_column(col, ValueType::Vector)?;
        self.rec()?.get_vector(col, dst)
    }

    fn get_string<H: StringHeap>(
        &self,
        col: usize,
        dst: &mut TString<'_, H>,
    ) -> Result<(), TestError> {
        self.schema().check_column(col, ValueType::String)?;
        self.rec()?.get_string(col, dst)
    }
}

/// What a cursor showed of one row.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Seen {
    batch: u64,
    id: RowId,
    /// The table row it reads.
    row: u64,
}

/// Every row of `c` from the start, checking the contract on the way: positions count from
/// 0 and are `None` off a row, batches never decrease (before, during and after), and the
/// end is fused.
fn drain<C: RowCursor>(c: &mut C) -> Result<Vec<Seen>, C::Error> {
    assert_eq!(c.position(), None);
    assert_eq!(c.id(), Err(CursorError::BeforeFirst));
    let mut seen = Vec::new();
    let mut batch = c.batch();
    while c.move_next()? {
        assert!(c.batch() >= batch, "batch decreased");
        batch = c.batch();
        assert_eq!(c.position(), Some(seen.len() as u64));
        let mut value = -1.0f32;
        c.get_f32(0, &mut value)?;
        seen.push(Seen {
            batch,
            id: c.id()?,
            row: value as u64,
        });
    }
    assert!(c.batch() >= batch, "batch decreased at the end");
    assert_fused(c);
    Ok(seen)
}

/// After the end: `Ok(false)` forever, no row to read, batch unchanged.
fn assert_fused<C: RowCursor>(c: &mut C) {
    let batch = c.batch();
    for _ in 0..4 {
        assert!(
            matches!(c.move_next(), Ok(false)),
            "move_next after the end"
        );
        assert_eq!(c.position(), None);
        assert_eq!(c.id(), Err(CursorError::Finished));
        assert!(c.get_scalar(0).is_err());
        assert_eq!(c.batch(), batch);
    }
}

fn rows_of(seen: &[Seen]) -> Vec<u64> {
    seen.iter().map(|s| s.row).collect()
}

fn assert_unique(ids: &mut Vec<RowId>) {
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), n, "ids collide");
}

// ---------------------------------------------------------------------------------------
// Row ids

#[test]
fn rowid_golden_values() {
    // Computed with Python integers, masking every step to 64 bits:
    //   M = 2**64 - 1; C1, C2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    //   rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & M
    //   def nxt(lo, hi):
    //       h1 = (rotl(lo, 27) + hi) & M; h1 = (h1 * 5 + 0x52DCE729) & M
    //       h2 = (rotl(hi, 31) + h1) & M; h2 = (h2 * 5 + 0x38495AB5) & M
    //       return h1, h2
    //   def fork(lo, hi):
    //       h1, h2 = nxt(lo, hi); return h1 ^ ((rotl(C1, 31) * C2) & M), h2
    //   def combine(lo, hi, olo, ohi):
    //       olo, ohi = fork(olo, ohi)
    //       k1 = (rotl((olo * C1) & M, 31) * C2) & M
    //       h1 = lo ^ k1; h1 = (rotl(h1, 27) + hi) & M; h1 = (h1 * 5 + 0x52DCE729) & M
    //       k2 = (rotl((ohi * C2) & M, 33) * C1) & M
    //       h2 = hi ^ k2; h2 = (rotl(h2, 31) + h1) & M; h2 = (h2 * 5 + 0x38495AB5) & M
    //       return h1, h2
    let m = u64::MAX;
    let cases = [
        // nxt(0, 0), nxt(1, 0), nxt(M, M)
        (
            RowId::new(0, 0).next(),
            (0x0000_0000_52dc_e729, 0x0000_0001_d699_de82),
        ),
        (
            RowId::new(1, 0).next(),
            (0x0000_0000_7adc_e729, 0x0000_0002_9e99_de82),
        ),
        (
            RowId::new(m, m).next(),
            (0x0000_0000_52dc_e71f, 0x0000_0001_d699_de4b),
        ),
        // fork(0, 0), fork(7, 0), nxt(*fork(7, 0))
        (
            RowId::new(0, 0).fork(),
            (0x34e0_9d0b_3902_1911, 0x0000_0001_d699_de82),
        ),
        (
            RowId::new(7, 0).fork(),
            (0x34e0_9d0a_0102_1911, 0x0000_0007_4e99_de82),
        ),
        (
            RowId::from_position(7).fork().next(),
            (0x9028_540f_8c21_583b, 0x154a_5092_f4f0_13eb),
        ),
        // combine(1, 2, 3, 4), combine(0, 0, 0, 0)
        (
            RowId::new(1, 2).combine(RowId::new(3, 4)),
            (0xcf76_cc3e_67f9_7a6c, 0xd6c3_70eb_9bb0_89c0),
        ),
        (
            RowId::new(0, 0).combine(RowId::new(0, 0)),
            (0xd1c9_98c3_7588_1dc3, 0x0caa_f030_0e06_760f),
        ),
    ];
    for (got, (low, high)) in cases {
        assert_eq!(got, RowId { low, high });
    }
    // (rotl(C1, 31) * C2) & M: the difference between a fork and a next.
    let fork = RowId::new(3, 9).fork();
    let next = RowId::new(3, 9).next();
    assert_eq!(fork.low ^ next.low, 0x34e0_9d0b_6bde_fe38);
    assert_eq!(fork.high, next.high);
    // `const fn` all the way down.
    const FORKED: RowId = RowId::from_position(7).fork();
    assert_eq!(FORKED, RowId::new(7, 0).fork());
    assert_eq!(RowId::from(5u64), RowId::new(5, 0));
}

#[test]
fn rowid_orders_by_high_then_low() {
    let mut ids = vec![
        RowId::new(0, 2),
        RowId::new(9, 1),
        RowId::new(u64::MAX, 0),
        RowId::new(1, 1),
        RowId::new(0, 0),
    ];
    ids.sort();
    assert_eq!(
        ids,
        [
            RowId::new(0, 0),
            RowId::new(u64::MAX, 0),
            RowId::new(1, 1),
            RowId::new(9, 1),
            RowId::new(0, 2),
        ]
    );
    assert!(RowId::new(u64::MAX, 0) < RowId::new(0, 1));
    assert_eq!(
        RowId::new(4, 4).partial_cmp(&RowId::new(4, 4)),
        Some(core::cmp::Ordering::Equal)
    );
    assert_eq!(core::mem::size_of::<RowId>(), 16);
}

proptest! {
    #![proptest_config({
        let mut c = config();
        c.cases = if cfg!(miri) { 1 } else { 4 };
        c
    })]

    /// ~100k ids built by every acceptable-set rule from a random start and three random
    /// partner ids never collide.
    #[test]
    fn rowid_derivations_do_not_collide(
        start in any::<u64>(),
        partners in prop::array::uniform3((any::<u64>(), any::<u64>())),
    ) {
        let n: u64 = if cfg!(miri) { 40 } else { 14_300 };
        let mut ids = Vec::with_capacity(n as usize * 7);
        for i in 0..n {
            let id = RowId::from_position(start.wrapping_add(i)); // rule 1
            let fork = id.fork(); // rule 3
            ids.extend([id, fork, fork.next(), fork.next().next()]); // rule 4
            for (low, high) in partners {
                ids.push(id.combine(RowId::new(low, high))); // rule 5
            }
        }
        assert_unique(&mut ids);
    }
}

// ---------------------------------------------------------------------------------------
// Schema, state, generator

#[test]
fn schema_checks_every_lookup() {
    let schema = Schema::new(&COLUMNS);
    assert_eq!((schema.len(), schema.is_empty()), (4, false));
    assert_eq!(schema.find("vec"), Some(2));
    assert_eq!(schema.find("nope"), None);
    assert_eq!(
        schema.column(4),
        Err(CursorError::ColumnOutOfRange { col: 4, columns: 4 })
    );
    assert_eq!(
        schema.check_column(1, ValueType::AnyScalar),
        Ok(ColumnKind::Scalar(ScalarType::U64))
    );
    assert_eq!(
        schema.check_column(2, ValueType::Vector),
        Ok(ColumnKind::DenseVector { len: 4 })
    );
    assert_eq!(
        schema.check_column(3, ValueType::AnyScalar),
        Err(CursorError::WrongType {
            col: 3,
            asked: ValueType::AnyScalar,
            found: ColumnKind::String
        })
    );
    assert_eq!(
        schema.check_column(0, ValueType::Scalar(ScalarType::F64)),
        Err(CursorError::WrongType {
            col: 0,
            asked: ValueType::Scalar(ScalarType::F64),
            found: ColumnKind::Scalar(ScalarType::F32)
        })
    );
    assert!(Schema::default().is_empty());
    let sparse = ColumnKind::SparseVector { len: 9 };
    assert_eq!(sparse.value_type(), ValueType::Vector);
}

#[test]
fn state_advance_is_fused() {
    let mut state = CursorState::default();
    assert_eq!(state.check_row(), Err(CursorError::BeforeFirst));
    assert_eq!(state.advance(|| Ok::<_, ()>(true)), Ok(true));
    assert!(state.is_on_row());
    assert_eq!(state.advance(|| Err(())), Err(()));
    assert!(state.is_done());
    let mut called = false;
    assert_eq!(
        state.advance(|| {
            called = true;
            Ok::<_, ()>(true)
        }),
        Ok(false)
    );
    assert!(!called);
    assert_eq!(state.check_row(), Err(CursorError::Finished));
}

#[test]
fn splitmix_reference_sequence_and_range() {
    // The reference SplitMix64 from seed 0 (Vigna's splitmix64.c).
    let mut rng = SplitMix64::new(0);
    assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
    assert_eq!(rng.below(0), 0);
    assert_eq!(rng.below(1), 0);
    let mut hits = [0u32; 3];
    for _ in 0..300 {
        let k = rng.below(3) as usize;
        hits[k] += 1;
    }
    assert!(hits.iter().all(|&h| h > 50), "{hits:?}");
    assert!(rng.below(u64::MAX) < u64::MAX);
}

// ---------------------------------------------------------------------------------------
// Getters

#[test]
fn getters_fill_and_report_errors() {
    let recs = recs(3);
    let mut c = SliceCursor::new(table(&recs));
    let mut f = 0.0f32;
    let before = Err(TestError::Cursor(CursorError::BeforeFirst));
    assert_eq!(c.get_f32(0, &mut f), before);
    assert!(c.move_next().unwrap());
    assert!(c.move_next().unwrap());

    c.get_f32(0, &mut f).unwrap();
    assert_eq!(f, 1.0);
    let mut tag = 0u64;
    c.get_u64(1, &mut tag).unwrap();
    assert_eq!(tag, 7 % 5);
    assert_eq!(c.get_scalar(1), Ok(Scalar::U64(2)));

    let mut v: InlineVBuffer<f32, 4> = VBuffer::default();
    c.get_vector(2, &mut v).unwrap();
    assert_eq!(v.values(), &[1.0, 1.0, 2.0, 3.0]);
    let mut small: InlineVBuffer<f32, 2> = VBuffer::default();
    assert_eq!(
        c.get_vector(2, &mut small),
        Err(TestError::Cursor(CursorError::Vector(
            SparseError::Capacity(CapacityError {
                needed: 4,
                available: 2
            })
        )))
    );

    let mut s: TString = TString::new();
    c.get_string(3, &mut s).unwrap();
    assert_eq!(s.as_bytes(), b"row 1");

    let wrong = |asked, found| {
        Err(TestError::Cursor(CursorError::WrongType {
            col: 0,
            asked,
            found,
        }))
    };
    let mut d = 0.0f64;
    let f32_col = ColumnKind::Scalar(ScalarType::F32);
    assert_eq!(
        c.get_f64(0, &mut d),
        wrong(ValueType::Scalar(ScalarType::F64), f32_col)
    );
    let (mut i, mut b) = (0i64, false);
    assert_eq!(
        c.get_i64(0, &mut i),
        wrong(ValueType::Scalar(ScalarType::I64), f32_col)
    );
    assert_eq!(
        c.get_bool(0, &mut b),
        wrong(ValueType::Scalar(ScalarType::Bool), f32_col)
    );
    assert_eq!(c.get_vector(0, &mut v), wrong(ValueType::Vector, f32_col));
    assert_eq!(c.get_string(0, &mut s), wrong(ValueType::String, f32_col));
    for col in [4, 99, usize::MAX] {
        let out = TestError::Cursor(CursorError::ColumnOutOfRange { col, columns: 4 });
        assert_eq!(c.get_f32(col, &mut f), Err(out));
        assert_eq!(c.get_scalar(col), Err(out));
        assert_eq!(c.get_vector(col, &mut v), Err(out));
        assert_eq!(c.get_string(col, &mut s), Err(out));
    }
    assert_eq!(f, 1.0, "a failed getter leaves a scalar destination alone");
}

#[test]
fn long_strings_need_a_heap() {
    let mut recs = recs(1);
    recs[0].text = "x".repeat(40);
    let mut c = SliceCursor::new(table(&recs));
    assert!(c.move_next().unwrap());
    let mut s: TString = TString::new();
    assert_eq!(
        c.get_string(3, &mut s),
        Err(TestError::Cursor(CursorError::String(
            TStringError::Alloc { bytes: 48 }
        )))
    );
}

#[test]
fn typed_getter_catches_a_source_lying_about_its_schema() {
    /// Declares `value` as `f32` but returns a `u64`.
    struct Liar;
    impl Row for Liar {
        type Error = CursorError;
        fn get_scalar(&self, _: usize) -> Result<Scalar, CursorError> {
            Ok(Scalar::U64(3))
        }
        fn get_vector<S: StorageMut<Elem = f32>>(
            &self,
            col: usize,
            _: &mut VBuffer<S>,
        ) -> Result<(), CursorError> {
            Err(CursorError::ColumnOutOfRange { col, columns: 0 })
        }
        fn get_string<H: StringHeap>(
            &self,
            col: usize,
            _: &mut TString<'_, H>,
        ) -> Result<(), CursorError> {
            Err(CursorError::ColumnOutOfRange { col, columns: 0 })
        }
    }
    let rows = [Liar];
    let mut c = SliceCursor::new(RowSlice::new(Schema::new(&COLUMNS), &rows));
    assert_eq!(c.move_next(), Ok(true));
    let mut f = 0.0f32;
    assert_eq!(
        c.get_f32(0, &mut f),
        Err(CursorError::WrongType {
            col: 0,
            asked: ValueType::Scalar(ScalarType::F32),
            found: ColumnKind::Scalar(ScalarType::U64),
        })
    );
}

#[test]
fn table_checks_rows() {
    let recs = recs(2);
    let t = table(&recs);
    assert_eq!(
        t.get_scalar(2, 0),
        Err(TestError::Cursor(CursorError::RowOutOfRange {
            row: 2,
            rows: 2
        }))
    );
    assert_eq!(
        t.get_scalar(u64::MAX, 0),
        Err(TestError::Cursor(CursorError::RowOutOfRange {
            row: u64::MAX,
            rows: 2
        }))
    );
    assert_eq!(t.id(1), RowId::from_position(1));
}

// ---------------------------------------------------------------------------------------
// Serial cursor

proptest! {
    #![proptest_config(config())]

    #[test]
    fn slice_cursor_yields_every_row_in_order(n in 0..MAX_ROWS) {
        let recs = recs(n);
        let seen = drain(&mut SliceCursor::new(table(&recs))).unwrap();
        prop_assert_eq!(rows_of(&seen), (0..n).collect::<Vec<_>>());
        prop_assert!(seen.iter().all(|s| s.batch == 0 && s.id == RowId::from_position(s.row)));
    }

    /// Cursors over partitions split at multiples of the batch size form a cursor set:
    /// disjoint batches, and a stable sort by batch restores the serial order.
    #[test]
    fn slice_cursor_set_recombines_by_batch(
        n in 0..MAX_ROWS,
        size in 1..9u64,
        cuts in prop::collection::vec(0..MAX_ROWS / 4, 0..4),
    ) {
        let recs = recs(n);
        let mut cuts = cuts;
        let size = NonZeroU64::new(size).unwrap();
        cuts.iter_mut().for_each(|c| *c *= size.get());
        cuts.extend([0, n]);
        cuts.sort_unstable();
        let mut all = Vec::new();
        let mut batches: Vec<Vec<u64>> = Vec::new();
        // Gather the partitions last to first, as a consolidator might meet them.
        for w in cuts.windows(2).rev() {
            let mut c = SliceCursor::with_batches(table(&recs), w[0]..w[1], size);
            let seen = drain(&mut c).unwrap();
            batches.push(seen.iter().map(|s| s.batch).collect());
            all.extend(seen);
        }
        for (i, a) in batches.iter().enumerate() {
            for b in &batches[i + 1..] {
                prop_assert!(a.iter().all(|x| !b.contains(x)), "cursors share a batch");
            }
        }
        all.sort_by_key(|s| s.batch);
        prop_assert_eq!(rows_of(&all), (0..n).collect::<Vec<_>>());
    }
}

#[test]
fn slice_cursor_clamps_its_range() {
    let recs = recs(5);
    let one = NonZeroU64::new(1).unwrap();
    let mut c = SliceCursor::with_batches(table(&recs), 3..99, one);
    assert_eq!(rows_of(&drain(&mut c).unwrap()), [3, 4]);
    let mut c = SliceCursor::with_batches(table(&recs), core::ops::Range { start: 4, end: 2 }, one);
    assert!(drain(&mut c).unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------
// Filter

proptest! {
    #![proptest_config(config())]

    #[test]
    fn filter_passes_ids_through(n in 0..MAX_ROWS, keep in any::<u64>()) {
        let recs = recs(n);
        let size = NonZeroU64::new(4).unwrap();
        let input = SliceCursor::with_batches(table(&recs), 0..n, size);
        let mut c = FilterCursor::new(input, |c: &Src<'_>| {
            let mut tag = 0;
            c.get_u64(1, &mut tag)?;
            Ok((keep >> (tag % 64)) & 1 == 1)
        });
        let seen = drain(&mut c).unwrap();
        let want: Vec<u64> = (0..n)
            .filter(|&r| (keep >> (recs[r as usize].tag % 64)) & 1 == 1)
            .collect();
        prop_assert_eq!(rows_of(&seen), want);
        for s in &seen {
            prop_assert_eq!(s.id, RowId::from_position(s.row));
            prop_assert_eq!(s.batch, s.row / 4);
        }
    }
}

#[test]
fn filter_is_fused_over_a_misbehaving_input() {
    let mut c = FilterCursor::new(Flaky::new(6, None), |_: &Flaky| Ok(true));
    assert_eq!(rows_of(&drain(&mut c).unwrap()), [0, 1, 2, 3, 4, 5]);
    // The input was asked once past its end, never again.
    assert_eq!(c.input().calls, 7);
    let mut c = FilterCursor::new(Flaky::new(6, None), |c: &Flaky| {
        Ok(c.position().is_some_and(|p| p % 2 == 1))
    });
    assert_eq!(rows_of(&drain(&mut c).unwrap()), [1, 3, 5]);
}

#[test]
fn filter_ends_on_an_error() {
    let mut c = FilterCursor::new(Flaky::new(6, Some(3)), |_: &Flaky| Ok(true));
    for _ in 0..3 {
        assert_eq!(c.move_next(), Ok(true));
    }
    assert_eq!(c.move_next(), Err(TestError::Decode { row: 3 }));
    assert_fused(&mut c);

    // A row the predicate cannot decode ends the pass with the decode error.
    let mut recs = recs(4);
    recs[2].bad = true;
    let mut c = FilterCursor::new(SliceCursor::new(table(&recs)), |c: &Src<'_>| {
        let mut v = 0.0;
        c.get_f32(0, &mut v)?;
        Ok(true)
    });
    assert_eq!(c.move_next(), Ok(true));
    assert_eq!(c.move_next(), Ok(true));
    assert_eq!(c.move_next(), Err(TestError::Decode { row: 2 }));
    assert_fused(&mut c);
    assert_eq!(c.into_input().row(), Some(2));
}

// ---------------------------------------------------------------------------------------
// Expand

/// The ids ML.NET gives the `k` outputs of `input`: fork, then next.
fn expand_ids(input: RowId, k: u64) -> impl Iterator<Item = RowId> {
    core::iter::successors(Some(input.fork()), |id| Some(id.next())).take(k as usize)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn expand_ids_fork_then_next(n in 0..MAX_ROWS, spread in 1..6u64) {
        let recs = recs(n);
        let size = NonZeroU64::new(3).unwrap();
        let input = SliceCursor::with_batches(table(&recs), 0..n, size);
        let mut c = ExpandCursor::new(input, |c: &Src<'_>| {
            let mut tag = 0;
            c.get_u64(1, &mut tag)?;
            Ok(tag % spread)
        });
        let mut indices = Vec::new();
        let mut seen = Vec::new();
        let mut batch = 0;
        prop_assert_eq!(c.index(), None);
        while c.move_next().unwrap() {
            prop_assert!(c.batch() >= batch);
            batch = c.batch();
            prop_assert_eq!(c.position(), Some(seen.len() as u64));
            indices.push(c.index().unwrap());
            seen.push((c.id().unwrap(), c.input().row().unwrap()));
        }
        assert_fused(&mut c);
        prop_assert_eq!(c.index(), None);

        let mut want = Vec::new();
        let mut want_indices = Vec::new();
        for r in &recs {
            let k = r.tag % spread;
            want.extend(expand_ids(RowId::from_position(r.row), k).map(|id| (id, r.row)));
            want_indices.extend(0..k);
        }
        prop_assert_eq!(&seen, &want);
        prop_assert_eq!(indices, want_indices);

        // Outputs never collide with each other or with the inputs.
        let mut ids: Vec<RowId> = seen.iter().map(|s| s.0).collect();
        ids.extend((0..n).map(RowId::from_position));
        assert_unique(&mut ids);
    }
}

#[test]
fn expand_reads_the_input_row_and_is_fused() {
    let mut c = ExpandCursor::new(Flaky::new(3, None), |_: &Flaky| Ok(2));
    let seen = drain(&mut c).unwrap();
    assert_eq!(rows_of(&seen), [0, 0, 1, 1, 2, 2]);
    let first = RowId::from_position(1).fork();
    assert_eq!((seen[2].id, seen[3].id), (first, first.next()));
    assert_eq!(c.input().calls, 4);

    let mut c = ExpandCursor::new(Flaky::new(3, Some(1)), |_: &Flaky| Ok(3));
    for _ in 0..3 {
        assert_eq!(c.move_next(), Ok(true));
    }
    assert_eq!(c.move_next(), Err(TestError::Decode { row: 1 }));
    assert_fused(&mut c);

    // A huge count is walked lazily, one output per step.
    let recs = recs(1);
    let mut c = ExpandCursor::new(SliceCursor::new(table(&recs)), |_: &Src<'_>| Ok(u64::MAX));
    for i in 0..5 {
        assert!(c.move_next().unwrap());
        assert_eq!(c.index(), Some(i));
    }
}

// ---------------------------------------------------------------------------------------
// Shuffle

fn shuffled(recs: &[Rec], pool_len: usize, seed: u64) -> Vec<Seen> {
    let mut pool = vec![0u64; pool_len];
    let mut c = ShuffleCursor::new(table(recs), &mut pool, seed).unwrap();
    let seen = drain(&mut c).unwrap();
    assert!(seen.iter().all(|s| s.batch == 0));
    seen
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn shuffle_is_a_seeded_permutation(
        n in 0..MAX_ROWS,
        pool_len in 1..(MAX_ROWS as usize + 8),
        seed in any::<u64>(),
    ) {
        let recs = recs(n);
        let seen = shuffled(&recs, pool_len, seed);
        prop_assert_eq!(&seen, &shuffled(&recs, pool_len, seed), "not deterministic");

        // Ids travel with their rows.
        prop_assert!(seen.iter().all(|s| s.id == RowId::from_position(s.row)));
        let mut rows = rows_of(&seen);
        // The pool bound: a row comes out at most `pool_len - 1` places early.
        for (pos, &row) in rows.iter().enumerate() {
            prop_assert!(row < (pos + pool_len) as u64);
        }
        rows.sort_unstable();
        prop_assert_eq!(rows, (0..n).collect::<Vec<_>>());
    }

    #[test]
    fn shuffle_differs_between_seeds(
        n in 16..MAX_ROWS.max(17),
        pool_len in 8..(MAX_ROWS as usize + 8),
        seed in any::<u64>(),
    ) {
        let recs = recs(n);
        prop_assert_ne!(
            rows_of(&shuffled(&recs, pool_len, seed)),
            rows_of(&shuffled(&recs, pool_len, seed.wrapping_add(1)))
        );
    }
}

#[test]
fn shuffle_needs_a_pool_and_reads_rows() {
    let recs = recs(3);
    assert_eq!(
        ShuffleCursor::new(table(&recs), &mut [], 1).err(),
        Some(CursorError::Capacity(CapacityError {
            needed: 1,
            available: 0
        }))
    );
    // A one-slot pool cannot reorder anything.
    assert_eq!(rows_of(&shuffled(&recs, 1, 42)), [0, 1, 2]);

    let mut pool = [0u64; 2];
    let mut c = ShuffleCursor::new(table(&recs), &mut pool, 9).unwrap();
    assert_eq!(c.row(), None);
    assert!(c.move_next().unwrap());
    let row = c.row().unwrap();
    let mut s: TString = TString::new();
    c.get_string(3, &mut s).unwrap();
    assert_eq!(s.as_bytes(), std::format!("row {row}").as_bytes());
    let mut v: InlineVBuffer<f32, 4> = VBuffer::default();
    c.get_vector(2, &mut v).unwrap();
    assert_eq!(v.get(0), Some(row as f32));
    assert_eq!(c.table().row_count(), 3);
}

// ---------------------------------------------------------------------------------------
// Composition

proptest! {
    #![proptest_config(config())]

    /// Shuffle, then filter, then expand, through `&mut` borrows: the contract holds end to
    /// end and ids stay unique.
    #[test]
    fn adapters_compose(n in 0..MAX_ROWS, seed in any::<u64>(), pool_len in 1..32usize) {
        let recs = recs(n);
        let mut pool = vec![0u64; pool_len];
        let mut shuffle = ShuffleCursor::new(table(&recs), &mut pool, seed).unwrap();
        let filter = FilterCursor::new(&mut shuffle, |c: &&mut ShuffleCursor<'_, _>| {
            Ok(c.row().is_some_and(|r| r % 3 != 0))
        });
        let mut c = ExpandCursor::new(filter, |_: &FilterCursor<_, _>| Ok(2));
        let seen = drain(&mut c).unwrap();
        prop_assert_eq!(seen.len() as u64, 2 * (0..n).filter(|r| r % 3 != 0).count() as u64);
        let mut ids: Vec<RowId> = seen.iter().map(|s| s.id).collect();
        assert_unique(&mut ids);
    }
}

// Partitions of a seeded shuffle: a cursor set's determinism.

fn partition_of_shuffle(
    recs: &[Rec],
    pool_len: usize,
    seed: u64,
    size: u64,
    w: u64,
    n: u64,
) -> Vec<Seen> {
    let mut pool = vec![0u64; pool_len];
    let shuffled = ShuffleCursor::new(table(recs), &mut pool, seed).unwrap();
    let size = NonZeroU64::new(size).unwrap();
    drain(&mut PartitionCursor::new(shuffled, size, w, n)).unwrap()
}

proptest! {
    #![proptest_config(config())]

    /// Workers running the same seeded shuffle, each keeping its batches: their rows,
    /// stably sorted by batch, are the serial shuffled cursor's (rows, ids and batches);
    /// batch ids are disjoint across workers and non-decreasing within each (`drain`
    /// checks that, and fusing).
    #[test]
    fn shuffled_partitions_merge_to_the_serial_shuffle(
        n in 0..MAX_ROWS,
        pool_len in 1..40usize,
        seed in any::<u64>(),
        size in 1..9u64,
        workers in 1..5u64,
    ) {
        let recs = recs(n);
        let serial = partition_of_shuffle(&recs, pool_len, seed, size, 0, 1);
        prop_assert_eq!(rows_of(&serial), rows_of(&shuffled(&recs, pool_len, seed)));
        let mut merged = Vec::new();
        for w in 0..workers {
            let part = partition_of_shuffle(&recs, pool_len, seed, size, w, workers);
            prop_assert!(part.iter().all(|s| s.batch % workers == w));
            merged.extend(part);
        }
        merged.sort_by_key(|s| s.batch);
        prop_assert_eq!(merged, serial);
    }
}
