//! Fuzzes the FlexBuffer reader (`tessera_lite::model::FlexValue`, custom operators'
//! options) on arbitrary bytes: whatever `FlexValue::root` accepts is read recursively (every
//! accessor of every value, vectors' and maps' elements, to a depth of 16 and at most 512
//! values: a vector may hold one sub-vector many times), and nothing may panic, loop without
//! end or read outside the buffer; what it reads must agree with itself (a slice lies inside
//! the buffer, a vector yields as many elements as its length, a map finds its own keys, a
//! string is its bytes).
//! Seeds: tests/fixtures/flexbuffers/*.flex and the custom operators' options.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera_lite::model::{FlexType, FlexValue};

const MAX_DEPTH: usize = 16;
const MAX_VALUES: usize = 512;

/// `s` lies inside `buf`.
fn inside(buf: &[u8], s: &[u8]) -> bool {
    let (b, e) = (buf.as_ptr() as usize, buf.as_ptr() as usize + buf.len());
    let (sb, se) = (s.as_ptr() as usize, s.as_ptr() as usize + s.len());
    s.is_empty() || (sb >= b && se <= e)
}

fn walk(buf: &[u8], v: FlexValue<'_>, depth: usize, budget: &mut usize) {
    if depth > MAX_DEPTH || *budget == 0 {
        return;
    }
    *budget -= 1;
    let ty = v.flex_type();
    let (i, u, f, b) = (v.as_i64(), v.as_u64(), v.as_f64(), v.as_bool());
    if let (Some(i), Some(u)) = (i, u) {
        assert_eq!(i as u64, u, "{ty:?}: signed and unsigned readings differ");
    }
    if let (Some(i), Some(f)) = (i, f) {
        if !matches!(ty, FlexType::Float | FlexType::IndirectFloat) {
            assert_eq!(i as f64, f, "{ty:?}: an integer read as another float");
        }
    }
    let _ = b;
    if let Some(bytes) = v.as_bytes() {
        assert!(inside(buf, bytes), "{ty:?}: bytes outside the buffer");
        if let Some(s) = v.as_str() {
            assert_eq!(s.as_bytes(), bytes);
        }
    }
    if let Some(vec) = v.as_vector() {
        let n = vec.len();
        assert_eq!(vec.is_empty(), n == 0);
        let mut count = 0;
        for (k, e) in vec.iter().enumerate() {
            count += 1;
            assert!(vec.get(k).is_some());
            walk(buf, e, depth + 1, budget);
            if *budget == 0 {
                return;
            }
        }
        assert_eq!(count, n, "a vector yields its length's elements");
        assert!(vec.get(n).is_none());
    }
    if let Some(map) = v.as_map() {
        let n = map.len();
        assert_eq!(map.is_empty(), n == 0);
        for (k, (key, value)) in map.iter().enumerate() {
            // (A lookup is a scan: the first 32 keys keep a long map from costing n².)
            if k < 32 && !key.is_empty() {
                // The first entry with the key (a malformed map may repeat one).
                assert!(map.get(key).is_some(), "a map finds its own key");
            }
            walk(buf, value, depth + 1, budget);
            if *budget == 0 {
                return;
            }
        }
        let _ = map.get("max_detections");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(root) = FlexValue::root(data) else {
        return;
    };
    let mut budget = MAX_VALUES;
    walk(data, root, 0, &mut budget);
});
