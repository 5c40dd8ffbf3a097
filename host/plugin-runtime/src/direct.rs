//! A batch written straight into a plugin's memory.
//!
//! A `list<u8>` argument is normally lowered by copying a host buffer into memory the plugin
//! allocates: the host frames the batch's IPC message into its own buffer, and wasmtime copies
//! that buffer in. [`DirectMessage`] lowers as the same `list<u8>`, but frames the laid-out
//! message ([`Message`]) directly into the plugin's allocation: one pass over the batch's bytes
//! fewer, which is most of what the boundary costs a transform beyond the encoding and decoding
//! native code does too (`docs/plugins.md`, "What the boundary costs").
//!
//! This implements wasmtime's `ComponentType` and `Lower` by hand, as its own `[u8]` does (the
//! traits are public but documented as wasmtime's internals); wasmtime is pinned to one version
//! in the workspace, and `tests/it/transform.rs` round-trips every common Arrow type, empty
//! batches and batches that grow the plugin's memory through it.

use crate::sandbox::HostState;
use ldp_plugin_ipc::Message;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use wasmtime::component::__internal::{
    CanonicalAbiInfo, InstanceType, InterfaceType, LowerContext,
};
use wasmtime::component::{ComponentNamedList, ComponentType, Func, Lift, Lower, TypedFunc};
use wasmtime::{Store, ValRaw};

/// A batch's message, lowered as a `list<u8>` framed in place in the plugin's memory.
pub(crate) struct DirectMessage<'a>(pub(crate) &'a Message);

// SAFETY: the lowered form is a pointer and a length, two `ValRaw`s, as for `[u8]`.
unsafe impl ComponentType for DirectMessage<'_> {
    type Lower = [ValRaw; 2];

    const ABI: CanonicalAbiInfo = CanonicalAbiInfo::POINTER_PAIR;

    fn typecheck(ty: &InterfaceType, types: &InstanceType<'_>) -> wasmtime::Result<()> {
        <[u8] as ComponentType>::typecheck(ty, types)
    }
}

// SAFETY: writes only into the allocation the plugin's `realloc` returned, bounds-checked.
unsafe impl Lower for DirectMessage<'_> {
    fn linear_lower_to_flat<T>(
        &self,
        cx: &mut LowerContext<'_, T>,
        _ty: InterfaceType,
        dst: &mut MaybeUninit<[ValRaw; 2]>,
    ) -> wasmtime::Result<()> {
        let (ptr, len) = self.store(cx)?;
        // As wasmtime's own pointer pairs: always written as 64-bit integers.
        dst.write([ValRaw::i64(ptr as i64), ValRaw::i64(len as i64)]);
        Ok(())
    }

    fn linear_lower_to_memory<T>(
        &self,
        cx: &mut LowerContext<'_, T>,
        _ty: InterfaceType,
        offset: usize,
    ) -> wasmtime::Result<()> {
        let (ptr, len) = self.store(cx)?;
        let pair = [u32::try_from(ptr)?, u32::try_from(len)?];
        let dst = cx
            .as_slice_mut()
            .get_mut(offset..offset + 8)
            .ok_or_else(|| wasmtime::format_err!("list pointer out of bounds of memory"))?;
        dst[..4].copy_from_slice(&pair[0].to_le_bytes());
        dst[4..].copy_from_slice(&pair[1].to_le_bytes());
        Ok(())
    }
}

impl DirectMessage<'_> {
    /// Allocates the list in the plugin (as wasmtime does for a `list<u8>`: alignment 1) and
    /// frames the message into it.
    fn store<T>(&self, cx: &mut LowerContext<'_, T>) -> wasmtime::Result<(usize, usize)> {
        let len = self.0.len();
        let ptr = cx.realloc(0, 0, 1, len)?;
        let dst = ptr
            .checked_add(len)
            .and_then(|end| cx.as_slice_mut().get_mut(ptr..end))
            .ok_or_else(|| wasmtime::format_err!("realloc return: beyond end of memory"))?;
        self.0.write_to(dst);
        Ok((ptr, len))
    }
}

/// An export that takes one batch (`ipc-batch`) and gives `R`, called with the batch framed in
/// place: `push` of transforms and checks, `write-batch` of sinks.
pub(crate) struct BatchExport<R> {
    func: Func,
    _result: PhantomData<fn() -> R>,
}

impl<R: ComponentNamedList + Lift + 'static> BatchExport<R> {
    /// Finds `interface`'s export `name` and checks its signature (once: calls skip the check).
    pub(crate) fn new(
        instance: &wasmtime::component::Instance,
        store: &mut Store<HostState>,
        interface: &str,
        name: &str,
    ) -> wasmtime::Result<Self> {
        let missing = || wasmtime::format_err!("no `{name}` export in `{interface}`");
        let exported = instance
            .get_export_index(&mut *store, None, interface)
            .ok_or_else(missing)?;
        let index = instance
            .get_export_index(&mut *store, Some(&exported), name)
            .ok_or_else(missing)?;
        let func = instance.get_func(&mut *store, index).ok_or_else(missing)?;
        func.typed::<(DirectMessage<'static>,), R>(&*store)?;
        Ok(Self {
            func,
            _result: PhantomData,
        })
    }

    /// Calls the export with `message`.
    pub(crate) fn call(
        &self,
        store: &mut Store<HostState>,
        message: &Message,
    ) -> wasmtime::Result<R> {
        // SAFETY: `new` checked the function against this signature.
        let typed: TypedFunc<(DirectMessage<'_>,), R> =
            unsafe { TypedFunc::new_unchecked(self.func) };
        typed.call(store, (DirectMessage(message),))
    }
}
