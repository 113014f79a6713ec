//! Descriptor pools: bind groups are allocated from a growing list of pools and freed back
//! individually. A group whose layout has binding arrays or update-after-bind bindings gets
//! a pool of its own, sized for exactly that set (arrays can be far larger than the shared
//! pools' share per set, and update-after-bind sets need a pool created for them).

use crate::conv;
use crate::device::BindGroupLayout;
use ash::vk;
use vigil_hal as hal;

/// Sets per pool.
const SETS_PER_POOL: u32 = 256;

#[derive(Debug)]
struct Pool {
    raw: vk::DescriptorPool,
    live_sets: u32,
    /// Set after an allocation from this pool failed; cleared when a set is freed into it.
    exhausted: bool,
}

/// Every descriptor pool of one device.
#[derive(Debug, Default)]
pub(crate) struct DescriptorPools {
    pools: Vec<Pool>,
    current: usize,
}

fn pool_sizes(scale: u32) -> [vk::DescriptorPoolSize; 7] {
    let size = |ty, per_set: u32| vk::DescriptorPoolSize {
        ty,
        descriptor_count: per_set * scale,
    };
    [
        size(vk::DescriptorType::UNIFORM_BUFFER, 4),
        size(vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC, 2),
        size(vk::DescriptorType::STORAGE_BUFFER, 8),
        size(vk::DescriptorType::STORAGE_BUFFER_DYNAMIC, 2),
        size(vk::DescriptorType::SAMPLED_IMAGE, 8),
        size(vk::DescriptorType::STORAGE_IMAGE, 4),
        size(vk::DescriptorType::SAMPLER, 4),
    ]
}

impl DescriptorPools {
    fn create_pool(&mut self, device: &ash::Device, scale: u32) -> hal::Result<usize> {
        let sizes = pool_sizes(scale);
        let info = vk::DescriptorPoolCreateInfo::default()
            .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
            .max_sets(SETS_PER_POOL)
            .pool_sizes(&sizes);
        // SAFETY: valid device and create info.
        let raw =
            unsafe { device.create_descriptor_pool(&info, None) }.map_err(conv::map_result)?;
        self.pools.push(Pool {
            raw,
            live_sets: 0,
            exhausted: false,
        });
        Ok(self.pools.len() - 1)
    }

    fn try_allocate(
        &mut self,
        device: &ash::Device,
        index: usize,
        layout: vk::DescriptorSetLayout,
    ) -> Option<vk::DescriptorSet> {
        let pool = &mut self.pools[index];
        if pool.exhausted || pool.live_sets >= SETS_PER_POOL {
            return None;
        }
        let layouts = [layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool.raw)
            .set_layouts(&layouts);
        let mut set = vk::DescriptorSet::null();
        // Called through the function pointer so the one set lands here: ash's wrapper
        // returns a `Vec`, an allocation and a free per bind group made.
        // SAFETY: the pool and layout belong to `device`; the pool is only touched under the
        // lock that guards `self`; `info` names one layout, so one set is written to `set`.
        let result = unsafe {
            (device.fp_v1_0().allocate_descriptor_sets)(device.handle(), &info, &mut set)
        };
        if result == vk::Result::SUCCESS && set != vk::DescriptorSet::null() {
            pool.live_sets += 1;
            Some(set)
        } else {
            pool.exhausted = true;
            None
        }
    }

    /// Allocates a set of `layout`, creating pools as needed. Returns the set and its pool.
    pub(crate) fn allocate(
        &mut self,
        device: &ash::Device,
        layout: &BindGroupLayout,
    ) -> hal::Result<(vk::DescriptorSet, usize)> {
        if !self.pools.is_empty() {
            if let Some(set) = self.try_allocate(device, self.current, layout.raw) {
                return Ok((set, self.current));
            }
            for index in 0..self.pools.len() {
                if index == self.current {
                    continue;
                }
                if let Some(set) = self.try_allocate(device, index, layout.raw) {
                    self.current = index;
                    return Ok((set, index));
                }
            }
        }
        // A layout larger than the usual share gets pools scaled to hold it.
        let largest = layout.entries.len() as u32;
        let scale = SETS_PER_POOL.max(largest * 4);
        let index = self.create_pool(device, scale)?;
        self.current = index;
        self.try_allocate(device, index, layout.raw)
            .map(|set| (set, index))
            .ok_or(hal::DeviceError::OutOfMemory)
    }

    /// Allocates a set of `layout` from a new pool of its own, sized for it; `variable` is
    /// the length of its variable-count last binding, if it has one.
    pub(crate) fn allocate_dedicated(
        device: &ash::Device,
        layout: &BindGroupLayout,
        variable: Option<u32>,
    ) -> hal::Result<(vk::DescriptorSet, vk::DescriptorPool)> {
        let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
        for e in &layout.entries {
            let ty = conv::descriptor_type(&e.ty);
            let count = match variable {
                Some(n)
                    if e.array_flags()
                        .contains(hal::BindingArrayFlags::VARIABLE_COUNT) =>
                {
                    n
                }
                _ => e.count(),
            }
            .max(1);
            match sizes.iter_mut().find(|s| s.ty == ty) {
                Some(s) => s.descriptor_count = s.descriptor_count.saturating_add(count),
                None => sizes.push(vk::DescriptorPoolSize {
                    ty,
                    descriptor_count: count,
                }),
            }
        }
        let mut flags = vk::DescriptorPoolCreateFlags::empty();
        if layout.update_after_bind {
            flags |= vk::DescriptorPoolCreateFlags::UPDATE_AFTER_BIND;
        }
        let info = vk::DescriptorPoolCreateInfo::default()
            .flags(flags)
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: valid device and create info.
        let pool =
            unsafe { device.create_descriptor_pool(&info, None) }.map_err(conv::map_result)?;
        let layouts = [layout.raw];
        let counts = [variable.unwrap_or(0)];
        let mut variable_info = vk::DescriptorSetVariableDescriptorCountAllocateInfo::default()
            .descriptor_counts(&counts);
        let mut alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&layouts);
        if variable.is_some() {
            alloc = alloc.push_next(&mut variable_info);
        }
        // SAFETY: the pool is fresh and sized for this one set of `layout`.
        match unsafe { device.allocate_descriptor_sets(&alloc) } {
            Ok(sets) => match sets.into_iter().next() {
                Some(set) => Ok((set, pool)),
                None => {
                    // SAFETY: the pool is ours and holds no set.
                    unsafe { device.destroy_descriptor_pool(pool, None) };
                    Err(hal::DeviceError::OutOfMemory)
                }
            },
            Err(e) => {
                // SAFETY: the pool is ours and holds no set.
                unsafe { device.destroy_descriptor_pool(pool, None) };
                Err(conv::map_result(e))
            }
        }
    }

    /// Frees a set back into its pool.
    pub(crate) fn free(&mut self, device: &ash::Device, pool: usize, set: vk::DescriptorSet) {
        let Some(p) = self.pools.get_mut(pool) else {
            return;
        };
        // SAFETY: the set came from this pool (created with FREE_DESCRIPTOR_SET) and no
        // pending GPU work uses it (caller's guarantee).
        let _ = unsafe { device.free_descriptor_sets(p.raw, &[set]) };
        p.live_sets = p.live_sets.saturating_sub(1);
        p.exhausted = false;
    }

    /// Sets allocated from the pools and not yet freed.
    pub(crate) fn live_sets(&self) -> i64 {
        self.pools.iter().map(|p| i64::from(p.live_sets)).sum()
    }

    /// Destroys every pool (and with them every set).
    pub(crate) fn destroy_all(&mut self, device: &ash::Device) {
        for pool in self.pools.drain(..) {
            // SAFETY: the device is idle; no set of the pool is in use.
            unsafe { device.destroy_descriptor_pool(pool.raw, None) };
        }
    }
}
