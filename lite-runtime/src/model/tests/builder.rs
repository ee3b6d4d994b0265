//! A test-only flatbuffer writer for `.tflite` models, front to back: each object is written
//! after the one that points to it (flatbuffers' offsets only point forward), so malformed
//! models need no external tools.

/// A table under construction: `(slot, field)` pairs.
#[derive(Clone, Debug, Default)]
pub struct T(pub Vec<(usize, F)>);

/// A field value.
#[derive(Clone, Debug)]
pub enum F {
    U8(u8),
    I32(i32),
    U32(u32),
    U64(u64),
    /// An offset to an object written after the table.
    Off(Obj),
}

/// An object an offset points to.
#[derive(Clone, Debug)]
pub enum Obj {
    Table(T),
    /// A vector of scalars: element size and the little-endian bytes.
    Scalars(usize, Vec<u8>),
    /// A string (written with its NUL).
    Str(Vec<u8>),
    /// A vector of offsets to objects.
    Offsets(Vec<Obj>),
    /// The object placed one byte past its natural alignment.
    Unaligned(Box<Obj>),
}

impl T {
    pub fn new() -> Self {
        Self(Vec::new())
    }
    /// Sets `slot`, replacing any earlier value.
    pub fn set(mut self, slot: usize, f: F) -> Self {
        self.put(slot, f);
        self
    }
    pub fn put(&mut self, slot: usize, f: F) {
        self.0.retain(|(s, _)| *s != slot);
        self.0.push((slot, f));
    }
    pub fn remove(&mut self, slot: usize) {
        self.0.retain(|(s, _)| *s != slot);
    }
    pub fn u8(self, slot: usize, v: u8) -> Self {
        self.set(slot, F::U8(v))
    }
    pub fn i32(self, slot: usize, v: i32) -> Self {
        self.set(slot, F::I32(v))
    }
    pub fn u32(self, slot: usize, v: u32) -> Self {
        self.set(slot, F::U32(v))
    }
    pub fn u64(self, slot: usize, v: u64) -> Self {
        self.set(slot, F::U64(v))
    }
    pub fn obj(self, slot: usize, o: Obj) -> Self {
        self.set(slot, F::Off(o))
    }
    pub fn table(self, slot: usize, t: T) -> Self {
        self.obj(slot, Obj::Table(t))
    }
}

pub fn ints(v: &[i32]) -> Obj {
    Obj::Scalars(4, v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
pub fn f32s(v: &[f32]) -> Obj {
    Obj::Scalars(4, v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
pub fn i64s(v: &[i64]) -> Obj {
    Obj::Scalars(8, v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
pub fn u16s(v: &[u16]) -> Obj {
    Obj::Scalars(2, v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
pub fn bytes(v: &[u8]) -> Obj {
    Obj::Scalars(1, v.to_vec())
}
pub fn string(s: &str) -> Obj {
    Obj::Str(s.as_bytes().to_vec())
}
pub fn tables(v: Vec<T>) -> Obj {
    Obj::Offsets(v.into_iter().map(Obj::Table).collect())
}

/// Pads `buf` with zeros until `(len + extra) % align == 0`.
fn pad(buf: &mut Vec<u8>, align: usize, extra: usize) {
    while (buf.len() + extra) % align != 0 {
        buf.push(0);
    }
}

fn field_size(f: &F) -> usize {
    match f {
        F::U8(_) => 1,
        F::I32(_) | F::U32(_) | F::Off(_) => 4,
        F::U64(_) => 8,
    }
}

/// Appends `o` and returns the position offsets to it must point at.
fn write(buf: &mut Vec<u8>, o: &Obj, aligned: bool) -> usize {
    match o {
        Obj::Unaligned(inner) => {
            pad(buf, 8, 0);
            buf.push(0);
            write(buf, inner, false)
        }
        Obj::Str(s) => {
            if aligned {
                pad(buf, 4, 0);
            }
            let pos = buf.len();
            buf.extend_from_slice(&(s.len() as u32).to_le_bytes());
            buf.extend_from_slice(s);
            buf.push(0);
            pos
        }
        Obj::Scalars(size, data) => {
            if aligned {
                pad(buf, (*size).max(4), 4);
            }
            let pos = buf.len();
            buf.extend_from_slice(&((data.len() / size) as u32).to_le_bytes());
            buf.extend_from_slice(data);
            pos
        }
        Obj::Offsets(items) => {
            if aligned {
                pad(buf, 4, 0);
            }
            let pos = buf.len();
            buf.extend_from_slice(&(items.len() as u32).to_le_bytes());
            let slots: Vec<usize> = items
                .iter()
                .map(|_| {
                    let p = buf.len();
                    buf.extend_from_slice(&[0; 4]);
                    p
                })
                .collect();
            for (item, at) in items.iter().zip(slots) {
                let target = write(buf, item, true);
                patch(buf, at, target);
            }
            pos
        }
        Obj::Table(t) => write_table(buf, t, aligned),
    }
}

fn patch(buf: &mut [u8], at: usize, target: usize) {
    let off = (target - at) as u32;
    buf[at..at + 4].copy_from_slice(&off.to_le_bytes());
}

/// Writes the vtable, then the table (8-aligned, fields at offsets aligned to their size),
/// then the objects its offset fields point to.
fn write_table(buf: &mut Vec<u8>, t: &T, aligned: bool) -> usize {
    let slots = t.0.iter().map(|(s, _)| s + 1).max().unwrap_or(0);
    // Layout of the inline fields after the 4-byte soffset.
    let mut offsets = vec![0u16; slots];
    let mut size = 4usize;
    let mut order: Vec<&(usize, F)> = t.0.iter().collect();
    order.sort_by_key(|(_, f)| std::cmp::Reverse(field_size(f)));
    let mut placed = Vec::new();
    for (slot, f) in order {
        let fs = field_size(f);
        while size % fs != 0 {
            size += 1;
        }
        offsets[*slot] = size as u16;
        placed.push((size, f));
        size += fs;
    }
    while size % 4 != 0 {
        size += 1;
    }
    let vt_len = 4 + 2 * slots;
    if aligned {
        pad(buf, 2, 0);
    }
    let vt = buf.len();
    buf.extend_from_slice(&(vt_len as u16).to_le_bytes());
    buf.extend_from_slice(&(size as u16).to_le_bytes());
    for o in &offsets {
        buf.extend_from_slice(&o.to_le_bytes());
    }
    if aligned {
        pad(buf, 8, 0);
    }
    let pos = buf.len();
    buf.extend_from_slice(&((pos - vt) as i32).to_le_bytes());
    buf.resize(pos + size, 0);
    let mut children = Vec::new();
    for (at, f) in placed {
        let p = pos + at;
        match f {
            F::U8(v) => buf[p] = *v,
            F::I32(v) => buf[p..p + 4].copy_from_slice(&v.to_le_bytes()),
            F::U32(v) => buf[p..p + 4].copy_from_slice(&v.to_le_bytes()),
            F::U64(v) => buf[p..p + 8].copy_from_slice(&v.to_le_bytes()),
            F::Off(o) => children.push((p, o)),
        }
    }
    for (p, o) in children {
        let target = write(buf, o, true);
        patch(buf, p, target);
    }
    pos
}

/// The file: root offset, identifier, root table and everything it points to.
pub fn finish(root: &T, identifier: &[u8; 4]) -> Vec<u8> {
    let mut buf = vec![0u8; 8];
    buf[4..8].copy_from_slice(identifier);
    let pos = write_table(&mut buf, root, true);
    buf[0..4].copy_from_slice(&(pos as u32).to_le_bytes());
    buf
}
