//! Instances and adapters: finding the GPUs, choosing one, opening a device on it.

use crate::DefaultApi;
use crate::device::{Device, DeviceDescriptor};
use crate::error::{Error, Result};
use std::sync::Arc;
use vigil_hal::{AdapterInfo, Api, Features, Instance as _, Limits, ValidationLog};

/// Whether to run the driver's validation layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Validation {
    /// Off.
    Off,
    /// On; instance creation fails if the layer is not installed.
    On,
    /// On when the environment variable `VIGIL_VALIDATION` is `1` (the default).
    #[default]
    FromEnvironment,
}

/// How to create an instance.
#[derive(Clone, Debug, Default)]
pub struct InstanceDescriptor {
    /// Application name reported to the driver.
    pub app_name: String,
    /// Validation layer.
    pub validation: Validation,
    /// Name native objects and command-buffer regions after their labels even with the
    /// validation layer off (with it on they always are, so its messages name them): for
    /// tools such as RenderDoc. Off by default: a name is a driver call per object made
    /// (on the NVIDIA H200 it took create-buffer-and-group from about 3.6 to 6.0 µs).
    pub native_labels: bool,
}

pub(crate) struct InstanceInner<A: Api> {
    pub hal: A::Instance,
    pub validation: Option<Arc<ValidationLog>>,
}

/// Entry point: enumerates adapters.
pub struct Instance<A: Api = DefaultApi> {
    inner: Arc<InstanceInner<A>>,
}

impl<A: Api> std::fmt::Debug for Instance<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("backend", &A::NAME)
            .finish()
    }
}

impl<A: Api> Instance<A> {
    /// Creates an instance.
    pub fn new(desc: &InstanceDescriptor) -> Result<Self> {
        let validation = match desc.validation {
            Validation::Off => false,
            Validation::On => true,
            Validation::FromEnvironment => {
                std::env::var("VIGIL_VALIDATION").is_ok_and(|v| v == "1")
            }
        };
        let hal = A::Instance::init(&vigil_hal::InstanceDescriptor {
            app_name: if desc.app_name.is_empty() {
                "vigil"
            } else {
                &desc.app_name
            },
            validation,
            native_labels: validation || desc.native_labels,
        })
        .map_err(|e| Error::from_hal(e, "Instance::new", ""))?;
        let validation = hal.validation_log();
        Ok(Instance {
            inner: Arc::new(InstanceInner { hal, validation }),
        })
    }

    /// Every adapter vigil can drive, in the driver's order.
    pub fn adapters(&self) -> Vec<Adapter<A>> {
        self.inner
            .hal
            .enumerate_adapters()
            .into_iter()
            .map(|exposed| Adapter {
                instance: self.inner.clone(),
                exposed: Arc::new(exposed),
            })
            .collect()
    }

    /// The adapter to use by default: the one whose name contains `VIGIL_ADAPTER` when that
    /// environment variable is set, else the first discrete GPU, then integrated, virtual,
    /// CPU.
    pub fn default_adapter(&self) -> Result<Adapter<A>> {
        match std::env::var("VIGIL_ADAPTER") {
            Ok(name) if !name.is_empty() => self.adapter_by_name(&name),
            _ => self.choose_adapter(None),
        }
    }

    /// The first adapter whose name contains `name` (case-insensitive).
    pub fn adapter_by_name(&self, name: &str) -> Result<Adapter<A>> {
        self.choose_adapter(Some(name))
    }

    fn choose_adapter(&self, name: Option<&str>) -> Result<Adapter<A>> {
        let adapters = self.adapters();
        let names: Vec<String> = adapters.iter().map(|a| a.info().name.clone()).collect();
        let chosen = match name {
            Some(name) => {
                let needle = name.to_lowercase();
                adapters
                    .into_iter()
                    .find(|a| a.info().name.to_lowercase().contains(&needle))
            }
            None => adapters
                .into_iter()
                .min_by_key(|a| a.info().device_type.preference_rank()),
        };
        chosen.ok_or_else(|| {
            let wanted = name.map_or_else(String::new, |n| format!(" named like '{n}'"));
            Error::new(
                crate::Rule::AdapterNotFound,
                "Instance::default_adapter",
                "",
                format!(
                    "no {} adapter{wanted} that meets vigil's baseline (Vulkan 1.3 with timeline \
                     semaphores, synchronization2, dynamic rendering); found: [{}]",
                    A::NAME,
                    names.join(", ")
                ),
            )
        })
    }

    /// What the validation layer said so far (when validation is on).
    pub fn validation_log(&self) -> Option<Arc<ValidationLog>> {
        self.inner.validation.clone()
    }
}

/// A physical device, as enumerated.
pub struct Adapter<A: Api = DefaultApi> {
    pub(crate) instance: Arc<InstanceInner<A>>,
    pub(crate) exposed: Arc<vigil_hal::ExposedAdapter<A>>,
}

impl<A: Api> Clone for Adapter<A> {
    fn clone(&self) -> Self {
        Adapter {
            instance: self.instance.clone(),
            exposed: self.exposed.clone(),
        }
    }
}

impl<A: Api> std::fmt::Debug for Adapter<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Adapter")
            .field("info", &self.exposed.info)
            .finish()
    }
}

impl<A: Api> Adapter<A> {
    /// Identity: name, type, driver, API version.
    pub fn info(&self) -> &AdapterInfo {
        &self.exposed.info
    }

    /// Features the adapter supports (a device enables a subset).
    pub fn features(&self) -> Features {
        self.exposed.features
    }

    /// Limits the adapter supports.
    pub fn limits(&self) -> &Limits {
        &self.exposed.limits
    }

    /// Opens a device with the requested features and limits.
    ///
    /// Differs from WebGPU's `requestDevice`: synchronous, and there is no separate queue
    /// object (the device submits).
    pub fn request_device(&self, desc: &DeviceDescriptor) -> Result<Device<A>> {
        Device::new(self, desc)
    }

    /// The validation log of the instance this adapter came from.
    pub fn validation_log(&self) -> Option<Arc<ValidationLog>> {
        self.instance.validation.clone()
    }
}
