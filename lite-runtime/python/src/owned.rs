//! An interpreter that owns what it borrows: the model's bytes, its arena and its resolver,
//! so that a Python object can hold it. (`tessera-capi` solves the same problem by leaving the
//! memory to its C caller; here nobody else can own it.)
//!
//! `Interpreter<'m, 'a>` borrows the model for `'m` and the arena and resolver for `'a`. The
//! three live in heap blocks this struct allocates, keeps as raw pointers (a `Box` moved
//! with its struct would assert unique access to memory the interpreter still borrows) and
//! frees only after the interpreter is gone; the interpreter's lifetimes are the blocks'
//! lifetime, which the type system cannot name, written `'static` and never handed out:
//! every accessor borrows `self`.

use core::ptr::NonNull;

use tessera_lite::interpreter::{Interpreter, InterpreterError, Options};
use tessera_lite::model::{Model, ModelError};

use tessera_data::buffers::{MemoryBudget, MemoryError};

use crate::resolver::Packs;

/// Why a model could not be loaded or set up.
#[derive(Debug)]
pub(crate) enum OwnedError {
    /// The model is malformed.
    Model(ModelError),
    /// Set-up failed.
    Interpreter(InterpreterError),
    /// The model or its arena is over the memory budget, or the allocator refused it.
    Memory(MemoryError),
}

/// Sixteen bytes at a 16-byte boundary: the unit of the model's and the arena's blocks, so a
/// model's constants are read in place (the interpreter copies misaligned ones) and the arena
/// needs no padding.
#[derive(Clone, Copy, Default)]
#[repr(C, align(16))]
struct Block([u8; 16]);

/// A heap block of at least `len` bytes, zeroed, 16-byte aligned, freed on drop. Held as a
/// raw pointer, never as a `Box`, so moving its owner asserts nothing about the bytes.
struct Bytes {
    blocks: NonNull<[Block]>,
    len: usize,
}

impl Bytes {
    /// `len` zero bytes, or why not: over `budget`, or refused by the allocator (reserved
    /// fallibly, so a size from a hostile model is an error, never an abort).
    fn zeroed(what: &'static str, len: usize, budget: MemoryBudget) -> Result<Self, MemoryError> {
        let blocks = budget.vec(what, len.div_ceil(16), Block::default())?;
        let blocks = NonNull::from(Box::leak(blocks.into_boxed_slice()));
        Ok(Self { blocks, len })
    }

    fn copy_of(bytes: &[u8], budget: MemoryBudget) -> Result<Self, MemoryError> {
        let mut b = Self::zeroed("the model's copy", bytes.len(), budget)?;
        b.as_mut_slice().copy_from_slice(bytes);
        Ok(b)
    }

    /// The bytes, for as long as the caller chooses: only [`Owned`] calls it, and it keeps
    /// the block alive (and unborrowed otherwise) for as long as it uses them.
    fn as_mut_slice<'x>(&mut self) -> &'x mut [u8] {
        let data = self.blocks.as_ptr().cast::<u8>();
        // SAFETY: `blocks` came from `Box::leak` of `len.div_ceil(16)` blocks of 16 bytes, so
        // `len` bytes from its start are allocated, initialised (zeroed or copied) and
        // aligned for `u8`; it is freed only in `drop`, after every borrow `Owned` made.
        unsafe { core::slice::from_raw_parts_mut(data, self.len) }
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        // SAFETY: `blocks` is the pointer `Box::leak` returned in `zeroed`, freed only here.
        drop(unsafe { Box::from_raw(self.blocks.as_ptr()) });
    }
}

/// A model, its resolver, and (once set up) its interpreter over an arena: all owned.
pub(crate) struct Owned {
    /// Declared first so that it is dropped first; `None` until set up and after close.
    /// Borrows `model`, `arena` and `resolver`.
    interpreter: Option<Interpreter<'static, 'static>>,
    /// The model, checked; borrows `model_bytes`.
    model: Model<'static>,
    /// The arena (empty until set up). Never freed before this struct: numpy views of its
    /// tensors may still point into it, and they keep this struct alive.
    arena: Bytes,
    /// Arenas of earlier set-ups that needed another size, kept for the same reason.
    retired: Vec<Bytes>,
    /// The model's bytes, never written after `load`: read through `model` and the
    /// interpreter, held here to be freed after them.
    #[allow(dead_code)]
    model_bytes: Bytes,
    /// The kernels the model may use.
    resolver: NonNull<Packs>,
    /// The most bytes the arena may take.
    budget: MemoryBudget,
}

// SAFETY: the raw pointers are to heap blocks this struct owns alone (nothing else holds
// them), so sending the struct sends sole ownership of the blocks, as a `Box` would; the
// interpreter and the model (which borrow them) are themselves `Send`.
unsafe impl Send for Owned {}

// SAFETY: through `&Owned` the blocks are only read (the model, and the interpreter's `&self`
// accessors); every write goes through `&mut Owned`. As for a `Box`, sharing the struct
// shares read access alone; the interpreter and model are themselves `Sync`.
unsafe impl Sync for Owned {}

impl Owned {
    /// Copies `bytes` and checks them as a model; the model and every arena it sets up in
    /// are allocated within `budget`.
    pub(crate) fn load(
        bytes: &[u8],
        packs: Packs,
        budget: MemoryBudget,
    ) -> Result<Self, OwnedError> {
        let mut model_bytes = Bytes::copy_of(bytes, budget).map_err(OwnedError::Memory)?;
        // The only borrow of these bytes from now on, shared; they are freed after the model
        // and the interpreter that hold it.
        let shared: &'static [u8] = model_bytes.as_mut_slice();
        let model = Model::load(shared).map_err(OwnedError::Model)?;
        let arena = Bytes::zeroed("the arena", 0, budget).map_err(OwnedError::Memory)?;
        let resolver = NonNull::from(Box::leak(Box::new(packs)));
        Ok(Self {
            interpreter: None,
            model,
            arena,
            retired: Vec::new(),
            model_bytes,
            resolver,
            budget,
        })
    }

    /// The model, checked when loaded.
    pub(crate) fn model(&self) -> &Model<'_> {
        &self.model
    }

    fn resolver(&self) -> &'static Packs {
        // SAFETY: `resolver` came from `Box::leak` in `load` and is freed only in `drop`,
        // after the interpreter that borrows it; it is never written.
        unsafe { self.resolver.as_ref() }
    }

    /// Bytes an arena needs for the model with these options.
    pub(crate) fn required(&self, options: &Options) -> Result<usize, InterpreterError> {
        Interpreter::required(&self.model, self.resolver(), options)
    }

    /// Sets the model up in the arena (a new one if it needs another size), dropping any
    /// interpreter set up before.
    pub(crate) fn set_up(&mut self, options: &Options) -> Result<(), OwnedError> {
        let needed = self.required(options).map_err(OwnedError::Interpreter)?;
        self.interpreter = None;
        if self.arena.len != needed {
            let new =
                Bytes::zeroed("the arena", needed, self.budget).map_err(OwnedError::Memory)?;
            let old = core::mem::replace(&mut self.arena, new);
            self.retired.push(old);
        }
        // The only `&mut` to the arena while this interpreter lives (the previous one, which
        // held the previous, is gone).
        let arena = self.arena.as_mut_slice();
        let it = Interpreter::new(self.model, self.resolver(), arena, options)
            .map_err(OwnedError::Interpreter)?;
        self.interpreter = Some(it);
        Ok(())
    }

    /// Ends the interpreter's use (its memory stays until this struct goes, see `arena`).
    pub(crate) fn close(&mut self) {
        self.interpreter = None;
    }

    /// The interpreter, once set up.
    pub(crate) fn get(&self) -> Option<&Interpreter<'static, 'static>> {
        self.interpreter.as_ref()
    }

    /// The interpreter, once set up, to write inputs or invoke.
    pub(crate) fn get_mut(&mut self) -> Option<&mut Interpreter<'static, 'static>> {
        self.interpreter.as_mut()
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        // The interpreter first: it borrows the blocks freed after it.
        self.interpreter = None;
        // SAFETY: `resolver` is the pointer `Box::leak` returned in `load`, freed only here,
        // and nothing borrows it any more.
        drop(unsafe { Box::from_raw(self.resolver.as_ptr()) });
        // `model`, then the blocks, drop after this, in declaration order.
    }
}
