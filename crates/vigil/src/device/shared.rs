//! Textures shared between devices over one native device ([`Device::share`]): a producer
//! exports a texture, a consumer registers it as a read-only texture of its own.
//!
//! One native image, one set of layouts: the registration shares the texture's state
//! between submissions, and every submission using the texture — the producer's or a
//! consumer's — holds the texture's order lock from planning its barriers to handing the
//! work to the queue both devices share, so the layouts change in queue order. A consumer's
//! submission first waits, bounded by the producer's progress (one hop: the producer's own
//! completions), for the producer's last submission using the texture to complete, so it
//! reads what the producer wrote last, never a frame in the making.

use super::{Core, Device, TextureObj, lock};
use crate::error::{Result, fail};
use crate::handle::{Handle, Texture};
use crate::native::Hal;
use crate::native::Owned;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;
use vigil_hal::{Api, TextureUsages};

/// A texture exported by one device, for another device over the same native device to
/// register ([`Device::register_texture`]). Holds the texture (and its memory) until the
/// token and every registration made from it are gone.
pub struct TextureExport<A: Api = crate::DefaultApi> {
    texture: Arc<TextureObj<A>>,
    producer: Arc<Core<A>>,
}

impl<A: Api> Clone for TextureExport<A> {
    fn clone(&self) -> Self {
        TextureExport {
            texture: self.texture.clone(),
            producer: self.producer.clone(),
        }
    }
}

impl<A: Api> std::fmt::Debug for TextureExport<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextureExport")
            .field("texture", &self.texture.label)
            .field("producer", &self.producer.label)
            .finish()
    }
}

impl<A: Api> Device<A> {
    /// Exports `texture` for devices over the same native device to register. Refused
    /// for a surface's frame (`surface.frame-texture`) and a registration (re-export the
    /// original from its own device).
    pub fn export_texture(&self, texture: Texture) -> Result<TextureExport<A>> {
        const OP: &str = "export_texture";
        self.check_alive(OP)?;
        let obj = self.lookup(texture, OP)?;
        if obj.frame {
            return Err(fail!(
                SurfaceFrameTexture,
                OP,
                &obj.label,
                "a surface's frame lives until it is presented: it is not exported"
            ));
        }
        if obj.placed.as_ref().is_some_and(|p| p.aliasable) {
            return Err(fail!(
                PlacementNotAliasable,
                OP,
                &obj.label,
                "an aliasable texture shares its bytes with other aliases of this device: it is not exported"
            ));
        }
        if obj.source.is_some() {
            return Err(fail!(
                TextureExportForeign,
                OP,
                &obj.label,
                "the texture is a registration of another device's texture: export the original from its own device"
            ));
        }
        obj.exported.store(true, Ordering::Release);
        let mut exports = lock(&self.exports);
        exports.retain(|w| w.strong_count() > 0);
        if !exports
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&obj)))
        {
            exports.push(Arc::downgrade(&obj));
        }
        Ok(TextureExport {
            texture: obj,
            producer: self.core.clone(),
        })
    }

    /// Registers a texture another device over the same native device exported, as a
    /// read-only texture of this device: its usages are the original's sampling and copy
    /// source, so writes through it are refused like any use its usages lack. Work using it
    /// waits for the producer's last work on it (see the module's rules). Refused for an
    /// export of this device, or of a device over another native device
    /// (`texture.export-foreign`).
    pub fn register_texture(&self, export: &TextureExport<A>) -> Result<Texture> {
        const OP: &str = "register_texture";
        self.check_alive(OP)?;
        let source = &export.texture;
        if Arc::ptr_eq(&export.producer, &self.core) {
            return Err(fail!(
                TextureExportForeign,
                OP,
                &source.label,
                "the texture was exported by this device: use it directly"
            ));
        }
        if !self.completion.same_root(&export.producer.completion) {
            return Err(fail!(
                TextureExportForeign,
                OP,
                &source.label,
                "the texture's device is over another native device: only devices made with `share` register each other's textures"
            ));
        }
        self.depth_on_queue(OP, &source.label, source.desc.format)?;
        let label = format!("{} (registered)", source.label);
        let raw = self
            .hal
            .alias_texture(&source.raw)
            .map_err(|e| self.hal_error(e, OP, &label))?;
        let raw = Owned::new(&self.hal, raw);
        let mut desc = source.desc.clone();
        desc.label = label.clone();
        desc.usage &= TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_SRC;
        let id = self.id;
        let (_, _, obj) = self
            .objects
            .textures
            .insert(|index, generation| TextureObj {
                raw,
                handle: Texture::from_parts(index, generation, id),
                label: crate::label::Label::new(&label),
                desc,
                last_use: AtomicU64::new(0),
                state: source.state.clone(),
                frame: false,
                source: Some(super::TextureSource {
                    texture: source.clone(),
                    producer: export.producer.clone(),
                }),
                exported: AtomicBool::new(false),
                order: source.order.clone(),
                heap_slots: std::sync::atomic::AtomicU32::new(0),
                heap_since: std::sync::atomic::AtomicU64::new(0),
                placed: None,
            })
            .ok_or_else(|| super::buffer::registry_full(OP, &label, "texture"))?;
        self.notify_created("texture", &label);
        Ok(obj.handle)
    }

    /// Waits until work naming `registration` may run without waiting: the producer's
    /// last submission using the texture completed. Gives up only once the producer made
    /// no progress for `stall_bound`, measured from its last progress; then the device
    /// (both devices: they share the native device) is declared lost.
    pub fn wait_for_texture_source_unless_stalled(
        &self,
        registration: Texture,
        stall_bound: Duration,
    ) -> Result<()> {
        const OP: &str = "wait_for_texture_source_unless_stalled";
        let obj = self.lookup(registration, OP)?;
        let Some(source) = obj.source.as_ref() else {
            return Err(fail!(
                TextureExportForeign,
                OP,
                &obj.label,
                "the texture is not a registration of another device's texture"
            ));
        };
        wait_for_source(source, stall_bound, OP)
    }

    /// Bytes of this device's exported textures still held by an export token or a
    /// registration after this device destroyed its own handle to them.
    pub fn shared_texture_tail_bytes(&self) -> u64 {
        let mut exports = lock(&self.exports);
        exports.retain(|w| w.strong_count() > 0);
        exports
            .iter()
            .filter_map(std::sync::Weak::upgrade)
            .filter(|t| {
                !self
                    .objects
                    .textures
                    .is_live(t.handle.index(), t.handle.generation())
            })
            .map(|t| crate::texture::texture_bytes(&t.desc.descriptor()))
            .fold(0u64, u64::saturating_add)
    }
}

/// Waits, bounded by the producer's progress, for its last submission using the texture.
pub(crate) fn wait_for_source<A: Api>(
    source: &super::TextureSource<A>,
    stall: Duration,
    op: &'static str,
) -> Result<()> {
    let serial = source.texture.last_use.load(Ordering::Acquire);
    source
        .producer
        .wait_progressing(serial, stall, super::WaitSite::SerialWait, op)
}

/// Each device's last submission using a shared texture: its backend device (weakly: a
/// device that went drained its work first), the queue it submits to, and the serial.
pub(crate) struct SharedUses<A: Api> {
    last: Vec<(Weak<Hal<A>>, u32, u64)>,
}

impl<A: Api> Default for SharedUses<A> {
    fn default() -> Self {
        SharedUses { last: Vec::new() }
    }
}

/// What a submission using shared textures holds until its work is on the queue: the
/// textures' order locks, and the work on other queues it must wait for on the GPU.
pub(crate) struct SharedOrder<'t, A: Api> {
    locks: Vec<MutexGuard<'t, SharedUses<A>>>,
    /// Devices on other queues and the serial of theirs to wait for (one entry each).
    pub after: Vec<(Arc<Hal<A>>, u64)>,
}

impl<A: Api> SharedOrder<'_, A> {
    /// Notes submission `serial` of `hal` as its device's last use of every texture held.
    pub fn submitted(&mut self, hal: &Arc<Hal<A>>, serial: u64) {
        let queue = hal.queue_index();
        for uses in &mut self.locks {
            uses.last.retain(|(w, _, _)| {
                w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), Arc::as_ptr(hal))
            });
            uses.last.push((Arc::downgrade(hal), queue, serial));
        }
    }
}

/// Adds a wait for `serial` of `hal` (the higher of two for one device).
pub(crate) fn wait_for<A: Api>(
    after: &mut Vec<(Arc<Hal<A>>, u64)>,
    hal: &Arc<Hal<A>>,
    serial: u64,
) {
    if serial == 0 {
        return;
    }
    match after.iter_mut().find(|(h, _)| Arc::ptr_eq(h, hal)) {
        Some(entry) => entry.1 = entry.1.max(serial),
        None => after.push((hal.clone(), serial)),
    }
}

/// The order locks of the shared textures the command buffers use (sorted, so two devices
/// take them in one order), and the GPU waits the submission needs. On the submitting
/// device's queue, a registration waits (on the host, bounded by the producer's progress)
/// for the producer's last submission using the texture, and queue order does the rest.
/// Across queues nothing waits on the host: the submission waits on the GPU for the
/// producer's last use and for every other device's last use on another queue, so the
/// texture's accesses and layout changes run in the order they were planned in.
pub(crate) fn order_shared<'t, A: Api>(
    textures: &'t [Arc<TextureObj<A>>],
    hal: &Hal<A>,
    stall: Duration,
    op: &'static str,
) -> Result<SharedOrder<'t, A>> {
    if textures.is_empty() {
        // The usual submission: no shared texture, nothing to wait for or lock.
        return Ok(SharedOrder {
            locks: Vec::new(),
            after: Vec::new(),
        });
    }
    let queue = hal.queue_index();
    let mut after: Vec<(Arc<Hal<A>>, u64)> = Vec::new();
    let mut locks: Vec<&'t Arc<Mutex<SharedUses<A>>>> = Vec::new();
    for t in textures {
        if let Some(source) = t.source.as_ref() {
            if source.producer.hal.queue_index() == queue {
                wait_for_source(source, stall, op)?;
            } else {
                let serial = source.texture.last_use.load(Ordering::Acquire);
                wait_for(&mut after, &source.producer.hal, serial);
            }
        }
        locks.push(&t.order);
    }
    locks.sort_by_key(|m| Arc::as_ptr(m) as usize);
    locks.dedup_by_key(|m| Arc::as_ptr(m) as usize);
    let locks: Vec<MutexGuard<'t, SharedUses<A>>> = locks.into_iter().map(|m| lock(m)).collect();
    for uses in &locks {
        for (device, on, serial) in &uses.last {
            if *on != queue {
                if let Some(h) = device.upgrade() {
                    wait_for(&mut after, &h, *serial);
                }
            }
        }
    }
    Ok(SharedOrder { locks, after })
}
