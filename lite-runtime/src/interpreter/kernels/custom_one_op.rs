//! One-custom-operator models for the custom kernels' tests: a model of one `CUSTOM`
//! operator (its name, opcode version and `custom_options` bytes) over tensors that may be
//! constants and may carry a per-tensor scale and zero point, run with every kernel
//! registered (`one_op::run`); and a FlexBuffer writer for the options, maps of numbers,
//! booleans and integer vectors, as `flexbuffers.Dumps` lays them out (every value 8 bytes
//! wide, which the format allows).

use crate::model::tests::builder::{F, Obj, T, bytes, f32s, finish, i64s, ints, string, tables};

pub use super::one_op::{f32s as f32_bytes, kernel_error, run, to_f32s};

/// A tensor: type code (`one_op::F32`...), shape, constant bytes, quantization.
pub struct Tensor {
    pub ty: u8,
    pub shape: Vec<i32>,
    pub data: Option<Vec<u8>>,
    pub quant: Option<(f32, i64)>,
}

/// A computed (or fed) tensor.
pub fn var(ty: u8, shape: &[i32]) -> Tensor {
    Tensor {
        ty,
        shape: shape.to_vec(),
        data: None,
        quant: None,
    }
}

/// A float32 constant.
pub fn const_f32(shape: &[i32], v: &[f32]) -> Tensor {
    Tensor {
        ty: super::one_op::F32,
        shape: shape.to_vec(),
        data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        quant: None,
    }
}

impl Tensor {
    /// The tensor with a scale and zero point.
    pub fn quantized(mut self, scale: f32, zero_point: i64) -> Self {
        self.quant = Some((scale, zero_point));
        self
    }
}

/// The model file of custom operator `name` (opcode `version`) with `options` over `tensors`:
/// `0..inputs` its inputs (the non-constant ones the graph's, in order), the rest its
/// outputs.
pub fn model(
    name: &str,
    version: i32,
    options: &[u8],
    tensors: &[Tensor],
    inputs: usize,
) -> Vec<u8> {
    let mut buffers = vec![T::new()];
    let mut ts = Vec::new();
    for (i, t) in tensors.iter().enumerate() {
        let b = buffers.len() as u32;
        buffers.push(match &t.data {
            Some(d) => T::new().obj(0, bytes(d)),
            None => T::new(),
        });
        let mut tt = T::new()
            .obj(0, ints(&t.shape))
            .u8(1, t.ty)
            .u32(2, b)
            .obj(3, string(&format!("t{i}")));
        if let Some((scale, zp)) = t.quant {
            tt = tt.table(4, T::new().obj(2, f32s(&[scale])).obj(3, i64s(&[zp])));
        }
        ts.push(tt);
    }
    let all: Vec<i32> = (0..tensors.len() as i32).collect();
    let (op_in, op_out) = all.split_at(inputs);
    let graph_in: Vec<i32> = op_in
        .iter()
        .copied()
        .filter(|&i| tensors[i as usize].data.is_none())
        .collect();
    let mut op = T::new().u32(0, 0).obj(1, ints(op_in)).obj(2, ints(op_out));
    if !options.is_empty() {
        op = op.set(5, F::Off(bytes(options)));
    }
    let subgraph = T::new()
        .obj(0, tables(ts))
        .obj(1, ints(&graph_in))
        .obj(2, ints(op_out))
        .obj(3, tables(vec![op]))
        .obj(4, string("main"));
    let opcode = T::new()
        .u8(0, 32)
        .obj(1, string(name))
        .i32(2, version)
        .i32(3, 32);
    let root = T::new()
        .u32(0, 3)
        .obj(1, tables(vec![opcode]))
        .obj(2, Obj::Offsets(vec![Obj::Table(subgraph)]))
        .obj(4, tables(buffers));
    finish(&root, b"TFL3")
}

/// A FlexBuffer value for [`flex_map`].
#[derive(Clone, Debug)]
pub enum Flex {
    Int(i64),
    Float(f64),
    Bool(bool),
    Ints(Vec<i64>),
    Str(&'static str),
}

/// A FlexBuffer map of `entries` (sorted by key here, as writers store them).
pub fn flex_map(entries: &[(&str, Flex)]) -> Vec<u8> {
    let mut entries = entries.to_vec();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let mut buf = Vec::new();
    let align = |buf: &mut Vec<u8>| {
        while buf.len() % 8 != 0 {
            buf.push(0);
        }
    };
    let word = |buf: &mut Vec<u8>, v: u64| buf.extend_from_slice(&v.to_le_bytes());
    // Keys, NUL-terminated.
    let mut key_at = Vec::new();
    for (k, _) in &entries {
        key_at.push(buf.len());
        buf.extend_from_slice(k.as_bytes());
        buf.push(0);
    }
    // Out-of-line values: strings and integer vectors.
    let mut value_at = Vec::new();
    for (_, v) in &entries {
        match v {
            Flex::Ints(xs) => {
                align(&mut buf);
                word(&mut buf, xs.len() as u64);
                value_at.push(buf.len());
                for &x in xs {
                    word(&mut buf, x as u64);
                }
            }
            Flex::Str(s) => {
                align(&mut buf);
                word(&mut buf, s.len() as u64);
                value_at.push(buf.len());
                buf.extend_from_slice(s.as_bytes());
                buf.push(0);
            }
            _ => value_at.push(0),
        }
    }
    // The keys vector (typed, of keys, 8 wide).
    align(&mut buf);
    word(&mut buf, entries.len() as u64);
    let keys = buf.len();
    for &k in &key_at {
        let here = buf.len();
        word(&mut buf, (here - k) as u64);
    }
    // The map: keys offset, keys width, length, values, types.
    let here = buf.len();
    word(&mut buf, (here - keys) as u64);
    word(&mut buf, 8);
    word(&mut buf, entries.len() as u64);
    let values = buf.len();
    let mut types = Vec::new();
    for ((_, v), &at) in entries.iter().zip(&value_at) {
        let here = buf.len();
        let (bits, ty) = match v {
            Flex::Int(x) => (*x as u64, 1),
            Flex::Float(x) => (x.to_bits(), 3),
            Flex::Bool(x) => (u64::from(*x), 26),
            Flex::Ints(_) => ((here - at) as u64, 11),
            Flex::Str(_) => ((here - at) as u64, 5),
        };
        word(&mut buf, bits);
        types.push((ty << 2) | 3);
    }
    buf.extend_from_slice(&types);
    // The root: an offset to the map, its type, its width.
    align(&mut buf);
    let here = buf.len();
    word(&mut buf, (here - values) as u64);
    buf.push((9 << 2) | 3);
    buf.push(8);
    buf
}

/// The raw bytes of little-endian `i32`s (options that are a C struct).
pub fn i32_struct(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn the_flexbuffer_writer_reads_back() {
    use crate::model::FlexValue;
    let b = flex_map(&[
        ("b", Flex::Int(-3)),
        ("a", Flex::Float(0.25)),
        ("c", Flex::Bool(true)),
        ("d", Flex::Ints(vec![4, -5, 6])),
        ("e", Flex::Str("bilinear")),
    ]);
    let m = FlexValue::root(&b).unwrap().as_map().unwrap();
    assert_eq!(m.len(), 5);
    assert_eq!(m.get("b").and_then(|v| v.as_i64()), Some(-3));
    assert_eq!(m.get("a").and_then(|v| v.as_f64()), Some(0.25));
    assert_eq!(m.get("c").and_then(|v| v.as_bool()), Some(true));
    let d = m.get("d").and_then(|v| v.as_vector()).unwrap();
    let d: Vec<i64> = d.iter().filter_map(|v| v.as_i64()).collect();
    assert_eq!(d, [4, -5, 6]);
    assert_eq!(m.get("e").and_then(|v| v.as_str()), Some("bilinear"));
}
