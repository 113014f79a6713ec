//! The Vulkan instance: loader, debug messenger feeding the validation log, adapter
//! enumeration.

use crate::adapter::Adapter;
use crate::{Api, conv};
use ash::vk;
use std::ffi::{CStr, c_void};
use std::sync::{Arc, Mutex, MutexGuard};
use vigil_hal as hal;
use vigil_hal::{Severity, ValidationLog, ValidationMessage};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Held across the whole of every instance's and device's creation, adapter enumeration
/// and destruction.
///
/// The Vulkan loader keeps process-wide lists of instances and of each driver's devices.
/// It walks a driver's device list under its own lock when resolving device entry points
/// (which `vkCreateDevice` does, and ash does for every device table), but adds and frees
/// list nodes in `vkCreateDevice`/`vkDestroyDevice` without that lock (Vulkan-Loader issue
/// 2018, still so in 1.4.341); drivers and the validation layer keep process-wide state
/// there too (NVIDIA's driver corrupted its heap — `free(): invalid pointer` — with devices
/// made and dropped on six threads while only the create and destroy calls themselves were
/// serialised). The spec lets applications make those calls concurrently, and vigil's
/// users do (a test harness runs tests on several threads, each with its own device), so
/// vigil serialises the lifecycles whole. They are rare, slow calls; nothing on a recording
/// or submission path takes this lock. It is reentrant: a failed device creation
/// destroys what it made while still holding it.
static LOADER: Mutex<()> = Mutex::new(());

thread_local! {
    /// How many [`LoaderGuard`]s this thread holds.
    static LOADER_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A hold on [`LOADER`] (the outermost on a thread owns the mutex).
pub(crate) struct LoaderGuard {
    _outer: Option<MutexGuard<'static, ()>>,
}

impl Drop for LoaderGuard {
    fn drop(&mut self) {
        LOADER_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// Takes [`LOADER`], or joins this thread's hold on it (a panic while it was held poisons
/// nothing it protects: it guards no data).
pub(crate) fn loader_lock() -> LoaderGuard {
    let depth = LOADER_DEPTH.with(|d| {
        let n = d.get();
        d.set(n.saturating_add(1));
        n
    });
    LoaderGuard {
        _outer: (depth == 0).then(|| {
            LOADER
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        }),
    }
}

/// Shared by the instance, its adapters and their devices, so the instance lives until the
/// last of them is gone.
pub(crate) struct InstanceShared {
    /// Keeps the loader library loaded for as long as the instance.
    _entry: ash::Entry,
    pub raw: ash::Instance,
    pub debug_utils: Option<ash::ext::debug_utils::Instance>,
    /// Whether devices name native objects and command-buffer regions after their labels
    /// (`InstanceDescriptor::native_labels`, and debug utils present).
    pub native_labels: bool,
    /// Surfaces (present when the loader has VK_KHR_surface), by window system.
    pub surface: Option<ash::khr::surface::Instance>,
    pub xlib: Option<ash::khr::xlib_surface::Instance>,
    pub xcb: Option<ash::khr::xcb_surface::Instance>,
    pub wayland: Option<ash::khr::wayland_surface::Instance>,
    /// Surfaces with no window (`VK_EXT_headless_surface`): presents that show nothing,
    /// for tests and programs that run the present path without a window system.
    pub headless: Option<ash::ext::headless_surface::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    /// Owned by the messenger's user data pointer; kept here to outlive it.
    pub log: Option<Arc<ValidationLog>>,
    log_ptr: *const ValidationLog,
}

// SAFETY: the raw pointer is the validation log kept alive by `log`; Vulkan instance handles
// may be used from any thread.
unsafe impl Send for InstanceShared {}
// SAFETY: as above; the log is internally synchronized.
unsafe impl Sync for InstanceShared {}

impl std::fmt::Debug for InstanceShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstanceShared")
            .field("validation", &self.log.is_some())
            .finish()
    }
}

impl Drop for InstanceShared {
    fn drop(&mut self) {
        let _loader = loader_lock();
        if let Some(du) = &self.debug_utils {
            if self.messenger != vk::DebugUtilsMessengerEXT::null() {
                // SAFETY: the messenger was created by this instance and is destroyed once.
                unsafe { du.destroy_debug_utils_messenger(self.messenger, None) };
            }
        }
        // SAFETY: every device and object made from the instance holds an Arc to it, so none
        // is left when the last Arc drops.
        unsafe { self.raw.destroy_instance(None) };
        if !self.log_ptr.is_null() {
            // SAFETY: the pointer came from Arc::into_raw in `init` and the messenger that
            // used it is gone.
            drop(unsafe { Arc::from_raw(self.log_ptr) });
        }
    }
}

/// The Vulkan instance.
#[derive(Debug)]
pub struct Instance {
    pub(crate) shared: Arc<InstanceShared>,
}

/// The validation layer's spec version, as the loader lists it (0 until an instance with
/// validation is made).
static LAYER_VERSION: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The first layer version whose synchronization validation applies a dynamic buffer
/// descriptor's dynamic offset (Vulkan-ValidationLayers pull request 8117, June 2024, for
/// issue 3605).
const DYNAMIC_OFFSETS_SEEN: u32 = vk::make_api_version(0, 1, 3, 290);

/// Whether a message is the one false report this backend leaves out of the log: layers
/// before [`DYNAMIC_OFFSETS_SEEN`] take a dynamic uniform or storage buffer descriptor to
/// be accessed at its base offset, whatever dynamic offset it was bound with, so a write
/// elsewhere in the buffer is reported as a hazard (`SYNC-HAZARD-*`) for an access it does
/// not overlap. Debian 12's layer (1.3.239), the one the project's set-up installs, is
/// such a layer. Only hazard messages that name a dynamic buffer descriptor, and only from
/// such a layer, are left out (and counted, `ValidationLog::filtered_count`); a newer layer
/// reports every hazard.
fn ignores_dynamic_offsets(id: &str, text: &str, layer: u32) -> bool {
    layer != 0
        && layer < DYNAMIC_OFFSETS_SEEN
        && id.starts_with("SYNC-HAZARD-")
        && (text.contains("type: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC")
            || text.contains("type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC"))
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if data.is_null() || user.is_null() {
        return vk::FALSE;
    }
    // SAFETY: the layer passes a valid callback-data struct for the duration of the call.
    let data = unsafe { &*data };
    // SAFETY: `user` is the Arc<ValidationLog> pointer installed in `init`, alive until the
    // messenger is destroyed.
    let log = unsafe { &*(user as *const ValidationLog) };
    // SAFETY: the strings, when non-null, are NUL-terminated and valid during the call.
    let id = unsafe { data.message_id_name_as_c_str() }
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // SAFETY: as above.
    let text = unsafe { data.message_as_c_str() }
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if ignores_dynamic_offsets(
        &id,
        &text,
        LAYER_VERSION.load(std::sync::atomic::Ordering::Relaxed),
    ) {
        log.note_filtered();
        return vk::FALSE;
    }
    let labels = cmd_buf_labels(data);
    let severity = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        Severity::Error
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        Severity::Warning
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::INFO) {
        Severity::Info
    } else {
        Severity::Verbose
    };
    if std::env::var_os("VIGIL_PRINT_VALIDATION").is_some() {
        eprintln!("[vulkan validation {severity:?}] {id}: {text}");
    }
    log.push(ValidationMessage {
        severity,
        id,
        text,
        labels,
    });
    vk::FALSE
}

/// The command buffer labels a message carries, as the layer lists them (innermost first),
/// turned outermost first.
fn cmd_buf_labels(data: &vk::DebugUtilsMessengerCallbackDataEXT<'_>) -> Vec<String> {
    if data.p_cmd_buf_labels.is_null() || data.cmd_buf_label_count == 0 {
        return Vec::new();
    }
    // SAFETY: the layer passes `cmd_buf_label_count` labels at `p_cmd_buf_labels`, valid
    // for the duration of the callback.
    let labels = unsafe {
        std::slice::from_raw_parts(data.p_cmd_buf_labels, data.cmd_buf_label_count as usize)
    };
    let mut names: Vec<String> = labels
        .iter()
        // SAFETY: each label's name, when non-null, is NUL-terminated and valid during the
        // call.
        .map(|l| unsafe { l.label_name_as_c_str() })
        .map(|n| {
            n.map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    names.reverse();
    names
}

impl hal::Instance for Instance {
    type A = Api;

    fn init(desc: &hal::InstanceDescriptor<'_>) -> hal::Result<Self> {
        // The loader's scan and its instance list change here (see `LOADER`).
        let _loader = loader_lock();
        // SAFETY: loading the Vulkan loader library runs its initialisers; nothing else is
        // required of us.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            hal::DeviceError::Unsupported(format!(
                "no Vulkan loader found ({e}); install a Vulkan driver and loader (see README)"
            ))
        })?;
        // SAFETY: plain query of the loader.
        let layers =
            unsafe { entry.enumerate_instance_layer_properties() }.map_err(conv::map_result)?;
        // SAFETY: plain query of the loader.
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .map_err(conv::map_result)?;
        let has_ext = |name: &CStr| {
            extensions
                .iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };
        let has_debug_utils = has_ext(ash::ext::debug_utils::NAME);
        let mut layer_names = Vec::new();
        if desc.validation {
            let layer = layers
                .iter()
                .find(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
            if let Some(l) = layer {
                LAYER_VERSION.store(l.spec_version, std::sync::atomic::Ordering::Relaxed);
            }
            let found = layer.is_some();
            if !found {
                return Err(hal::DeviceError::Unsupported(
                    "the Khronos validation layer (VK_LAYER_KHRONOS_validation) is not installed; \
                     install vulkan-validationlayers or run `cargo xtask setup`"
                        .into(),
                ));
            }
            if !has_debug_utils {
                return Err(hal::DeviceError::Unsupported(
                    "validation needs VK_EXT_debug_utils, which the loader lacks".into(),
                ));
            }
            layer_names.push(VALIDATION_LAYER.as_ptr());
        }
        let mut ext_names = Vec::new();
        if has_debug_utils {
            ext_names.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        // Presentation, where the loader has it: the surface extension and each window
        // system's that is there.
        let has_surface = has_ext(ash::khr::surface::NAME);
        let window_systems = [
            ash::khr::xlib_surface::NAME,
            ash::khr::xcb_surface::NAME,
            ash::khr::wayland_surface::NAME,
        ];
        let has_window = window_systems.map(|n| has_surface && has_ext(n));
        if has_surface {
            ext_names.push(ash::khr::surface::NAME.as_ptr());
        }
        for (name, has) in window_systems.iter().zip(has_window) {
            if has {
                ext_names.push(name.as_ptr());
            }
        }
        let has_headless = has_surface && has_ext(ash::ext::headless_surface::NAME);
        if has_headless {
            ext_names.push(ash::ext::headless_surface::NAME.as_ptr());
        }
        // The layer's synchronization validation reports missing or wrong barriers as
        // hazards, whatever the driver does with them (lavapipe runs work in order and
        // would hide them).
        let mut sync_validation = false;
        if desc.validation {
            // SAFETY: plain query of the layer's own extensions.
            let layer_exts =
                unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) }
                    .unwrap_or_default();
            sync_validation = layer_exts.iter().any(|e| {
                e.extension_name_as_c_str()
                    .is_ok_and(|n| n == ash::ext::validation_features::NAME)
            });
            if sync_validation {
                ext_names.push(ash::ext::validation_features::NAME.as_ptr());
            }
        }
        let app_name = std::ffi::CString::new(desc.app_name.replace('\0', " ")).unwrap_or_default();
        let app = vk::ApplicationInfo::default()
            .application_name(&app_name)
            .engine_name(c"vigil")
            .api_version(vk::API_VERSION_1_3);

        let log = desc.validation.then(|| Arc::new(ValidationLog::default()));
        let log_ptr = log
            .as_ref()
            .map_or(std::ptr::null(), |l| Arc::into_raw(l.clone()));
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(debug_callback))
            .user_data(log_ptr as *mut c_void);
        let mut create = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&ext_names);
        if log.is_some() {
            // Also catches messages from instance creation and destruction themselves.
            create = create.push_next(&mut messenger_info);
        }
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        if sync_validation {
            create = create.push_next(&mut features);
        }
        // SAFETY: every pointer in `create` refers to locals alive for the call.
        let raw = match unsafe { entry.create_instance(&create, None) } {
            Ok(raw) => raw,
            Err(e) => {
                if !log_ptr.is_null() {
                    // SAFETY: from Arc::into_raw above; no messenger holds it.
                    drop(unsafe { Arc::from_raw(log_ptr) });
                }
                return Err(conv::map_result(e));
            }
        };
        let debug_utils =
            has_debug_utils.then(|| ash::ext::debug_utils::Instance::new(&entry, &raw));
        let [xlib, xcb, wayland] = has_window;
        let surface = has_surface.then(|| ash::khr::surface::Instance::new(&entry, &raw));
        let xlib = xlib.then(|| ash::khr::xlib_surface::Instance::new(&entry, &raw));
        let xcb = xcb.then(|| ash::khr::xcb_surface::Instance::new(&entry, &raw));
        let wayland = wayland.then(|| ash::khr::wayland_surface::Instance::new(&entry, &raw));
        let headless =
            has_headless.then(|| ash::ext::headless_surface::Instance::new(&entry, &raw));
        let mut shared = InstanceShared {
            _entry: entry,
            raw,
            native_labels: desc.native_labels && debug_utils.is_some(),
            debug_utils,
            surface,
            xlib,
            xcb,
            wayland,
            headless,
            messenger: vk::DebugUtilsMessengerEXT::null(),
            log,
            log_ptr,
        };
        if let (Some(du), true) = (&shared.debug_utils, shared.log.is_some()) {
            // SAFETY: valid instance and create info; the user data outlives the messenger.
            shared.messenger = unsafe { du.create_debug_utils_messenger(&messenger_info, None) }
                .map_err(conv::map_result)?;
        }
        Ok(Instance {
            shared: Arc::new(shared),
        })
    }

    fn enumerate_adapters(&self) -> Vec<hal::ExposedAdapter<Api>> {
        let _loader = loader_lock();
        // SAFETY: plain query on a valid instance.
        let Ok(devices) = (unsafe { self.shared.raw.enumerate_physical_devices() }) else {
            return Vec::new();
        };
        devices
            .into_iter()
            .filter_map(|pd| Adapter::expose(&self.shared, pd))
            .collect()
    }

    fn validation_log(&self) -> Option<Arc<ValidationLog>> {
        self.shared.log.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dynamic_buffer_hazards_from_an_old_layer_are_left_out() {
        let old = vk::make_api_version(0, 1, 3, 239);
        let new = vk::make_api_version(0, 1, 3, 290);
        let hazard = "SYNC-HAZARD-READ-AFTER-WRITE";
        let dynamic = "vkCmdDispatch: Hazard READ_AFTER_WRITE for VkBuffer 0x1[u] in VkCommandBuffer 0x2[], VkPipeline 0x3[k], and VkDescriptorSet 0x4[g], type: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, binding #0 index 0.";
        let plain = "vkCmdDispatch: Hazard READ_AFTER_WRITE for VkBuffer 0x1[u] in VkCommandBuffer 0x2[], VkPipeline 0x3[k], and VkDescriptorSet 0x4[g], type: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, binding #0 index 0.";
        assert!(ignores_dynamic_offsets(hazard, dynamic, old));
        assert!(ignores_dynamic_offsets(
            hazard,
            &dynamic.replace("UNIFORM_BUFFER_DYNAMIC", "STORAGE_BUFFER_DYNAMIC"),
            old
        ));
        // Every other hazard, any message from a layer that applies the offsets, and any
        // message when the layer is unknown, is kept.
        assert!(!ignores_dynamic_offsets(hazard, plain, old));
        assert!(!ignores_dynamic_offsets(hazard, dynamic, new));
        assert!(!ignores_dynamic_offsets(hazard, dynamic, 0));
        assert!(!ignores_dynamic_offsets(
            "VUID-vkCmdDispatch-None-02700",
            dynamic,
            old
        ));
    }
}
