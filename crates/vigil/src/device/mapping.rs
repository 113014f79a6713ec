//! Host mappings of buffers.

use super::{Device, DeviceState};
use vigil_hal::Api;

impl<A: Api> Device<A> {
    /// Closes the mapping of buffer slot `index`, if any (the buffer is being destroyed).
    pub(crate) fn close_mapping_of(&self, st: &mut DeviceState<A>, index: u32) {
        if let Some(b) = st.buffers.slot_mut(index).and_then(|s| s.value.as_mut()) {
            b.mapping = None;
        }
    }
}
