//! Which custom-operator packs an interpreter may use: every builtin kernel tessera has, and
//! the custom kernels of the packs chosen (`custom_ops=` in Python).

use tessera_lite::interpreter::{AllOps, Kernel, OpResolver};

/// The custom-operator packs, as `custom_ops=` names them.
pub(crate) const PACKS: [&str; 4] = ["signal", "circular-buffer", "detection", "mediapipe"];

/// The pack custom operator `name` belongs to (`PACKS` index). Every custom kernel of
/// `kernels::CUSTOM` is in one: the signal library's names start `Signal`.
fn pack_of(name: &[u8]) -> usize {
    match name {
        n if n.starts_with(b"Signal") => 0,
        b"CIRCULAR_BUFFER" => 1,
        b"TFLite_Detection_PostProcess" => 2,
        _ => 3,
    }
}

/// Every builtin kernel; the custom kernels of the packs chosen.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packs {
    /// `PACKS[i]` chosen.
    chosen: [bool; 4],
}

impl Packs {
    /// The packs named (each one of [`PACKS`]); `Err` with the first unknown name.
    pub(crate) fn named<'n>(names: impl IntoIterator<Item = &'n str>) -> Result<Self, &'n str> {
        let mut chosen = [false; 4];
        for name in names {
            let i = PACKS.iter().position(|p| *p == name).ok_or(name)?;
            chosen[i] = true;
        }
        Ok(Self { chosen })
    }

    /// Every pack.
    pub(crate) fn all() -> Self {
        Self { chosen: [true; 4] }
    }
}

impl OpResolver for Packs {
    fn kernels(&self) -> &[&'static Kernel] {
        AllOps.kernels()
    }

    fn find_custom(&self, name: &[u8]) -> Option<(usize, &'static Kernel)> {
        if !self.chosen[pack_of(name)] {
            return None;
        }
        AllOps.find_custom(name)
    }
}
