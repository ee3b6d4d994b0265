//! The heap variant's job, in `no_std` + `alloc` code that `build.rs` also runs on the host:
//! builds string inputs as LARGE `TString`s (longer than a SMALL string's 22 inline bytes, so
//! their bytes live on the heap), runs TensorFlow's string model
//! (`tests/fixtures/models/strings.tflite`: GATHER of a constant STRING table, GATHER of the
//! STRING input with a 2-D index, a float GATHER and MUL) in an arena that is a heap block
//! sized at start-up by `Interpreter::required`, copies the string outputs into heap-backed
//! string tensors, checks that every picked string is the input word it names, and digests
//! every output so the firmware can compare with the host bit for bit.

use tessera_alloc::{HeapBlock, HeapTString, OwnedTensor, StringTensor};
use tessera_core::memory::HostMemory;
use tessera_core::tstring::{TStringError, TStringType};
use tessera_lite::interpreter::{
    Interpreter, InterpreterError, MutableOpResolver, Options, kernels,
};
use tessera_lite::model::{Model, ModelError};

/// Bytes kept on a 16-byte boundary, so the model's constants are read in place.
#[repr(C, align(16))]
struct Aligned<B: ?Sized>(B);

static MODEL_BYTES: &Aligned<[u8]> = &Aligned(*include_bytes!(
    "../../../tests/fixtures/models/strings.tflite"
));

/// Input 1, `ids` (`[5]`): rows of the constant STRING and float tables (`[8]` each).
pub const IDS: [i32; 5] = [7, 0, 3, 5, 1];
/// Input 2, `pick` (`[2, 3]`): which input words to gather.
pub const PICK: [i32; 6] = [3, 0, 1, 2, 2, 3];

/// What one run found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StringsOutcome {
    /// Input words that are LARGE strings (all 4).
    pub large: u32,
    /// Bytes of the 5 gathered table strings.
    pub names_bytes: u32,
    /// Bytes of the 6 picked input words.
    pub picked_bytes: u32,
    /// FNV-1a of every output: the strings' bytes and lengths, the floats' bit patterns.
    pub digest: u64,
}

/// Why the job stopped.
#[derive(Debug, Clone, Copy)]
pub enum StringsError {
    /// The model is bad (never, for the bundled one).
    Model(ModelError),
    /// Setting up, feeding or running the interpreter failed.
    Interpreter(InterpreterError),
    /// A heap string could not be built (the heap is full).
    String(TStringError),
    /// Input word `0` is not a LARGE string.
    NotLarge(usize),
    /// Picked string `0` is not the input word `PICK[0]` names.
    Picked(usize),
    /// Input `0` does not hold as many values as the job gives it.
    InputShape(usize),
}

impl core::fmt::Display for StringsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Model(e) => write!(f, "the string model: {e}"),
            Self::Interpreter(e) => write!(f, "the string model's interpreter: {e}"),
            Self::String(e) => write!(f, "a heap string: {e}"),
            Self::NotLarge(i) => write!(f, "input word {i} is not a LARGE string"),
            Self::Picked(k) => write!(f, "picked string {k} is not the word it names"),
            Self::InputShape(i) => write!(f, "input {i} does not hold the job's values"),
        }
    }
}

impl From<InterpreterError> for StringsError {
    fn from(e: InterpreterError) -> Self {
        Self::Interpreter(e)
    }
}

impl From<TStringError> for StringsError {
    fn from(e: TStringError) -> Self {
        Self::String(e)
    }
}

/// The kernels the string model needs.
pub fn ops() -> MutableOpResolver<2> {
    let mut ops = MutableOpResolver::new();
    // Two slots for two kernels: never full.
    let _ = ops.add(&kernels::GATHER);
    let _ = ops.add(&kernels::MUL);
    ops
}

/// 64-bit FNV-1a, continued from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Runs the job. `heap_used` is asked once, while every heap value is alive, and its answer
/// returned beside the outcome (the firmware passes its allocator's count, the host 0).
pub fn run(heap_used: &dyn Fn() -> usize) -> Result<(StringsOutcome, usize), StringsError> {
    // Words longer than 22 bytes: each grows on the heap as it is appended to.
    let mut words = StringTensor::new();
    let mut large = 0;
    for i in 0..4u8 {
        let mut w = HeapTString::from_bytes(b"keyword ")?;
        w.append(&[b'0' + i])?;
        w.append(b", a LARGE string on the heap")?;
        if w.string_type() != TStringType::Large {
            return Err(StringsError::NotLarge(usize::from(i)));
        }
        words.push(w.as_bytes())?;
        large += u32::from(words.as_slice()[usize::from(i)].string_type() == TStringType::Large);
    }

    let model = Model::load(&MODEL_BYTES.0).map_err(StringsError::Model)?;
    let ops = ops();
    let options = Options::default();
    // The arena: an owned heap block, sized at start-up for this model.
    let mut arena = HeapBlock::with_len(Interpreter::required(&model, &ops, &options)?);
    let mut it = Interpreter::new(model, &ops, arena.bytes_mut(), &options)?;
    it.set_input_strings(0, words.as_slice().iter().map(|w| w.as_bytes()))?;
    for (i, values) in [(1, &IDS[..]), (2, &PICK[..])] {
        let mut input = it.input::<i32>(i)?;
        let slice = input
            .as_slice_mut()
            .filter(|s| s.len() == values.len())
            .ok_or(StringsError::InputShape(i))?;
        slice.copy_from_slice(values);
    }
    it.invoke()?;

    // Copies out of the arena: heap-backed string tensors (LARGE where over 22 bytes) and an
    // owned float tensor.
    let mut names = StringTensor::new();
    names.extend_from_tflite(it.output_strings(0)?)?;
    let mut picked = StringTensor::new();
    picked.extend_from_tflite(it.output_strings(1)?)?;
    let score = OwnedTensor::from_view(&it.output::<f32>(2)?);
    let used = heap_used();

    for (k, &p) in PICK.iter().enumerate() {
        if picked.get(k) != words.get(p as usize) {
            return Err(StringsError::Picked(k));
        }
    }
    let mut digest = 0xcbf2_9ce4_8422_2325;
    let (mut names_bytes, mut picked_bytes) = (0, 0);
    for s in &names {
        digest = fnv(digest, &(s.len() as u32).to_le_bytes());
        digest = fnv(digest, s.as_bytes());
        names_bytes += s.len() as u32;
    }
    for s in &picked {
        digest = fnv(digest, &(s.len() as u32).to_le_bytes());
        digest = fnv(digest, s.as_bytes());
        picked_bytes += s.len() as u32;
    }
    for v in score.view_all().iter() {
        digest = fnv(digest, &v.to_bits().to_le_bytes());
    }
    Ok((
        StringsOutcome {
            large,
            names_bytes,
            picked_bytes,
            digest,
        },
        used,
    ))
}
