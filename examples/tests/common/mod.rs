//! What the examples' tests share.

#![allow(clippy::unwrap_used)]

use vigil::*;

/// The default adapter's device with the validation layer on, and the layer's log (every
/// test ends by checking it stayed silent).
pub fn device() -> (Device, std::sync::Arc<ValidationLog>) {
    device_with(Features::empty())
}

/// As [`device`], with whichever of `features` the adapter supports.
pub fn device_with(features: Features) -> (Device, std::sync::Arc<ValidationLog>) {
    let instance = Instance::<DefaultApi>::new(&InstanceDescriptor {
        app_name: "example tests".into(),
        validation: Validation::On,
        ..Default::default()
    })
    .unwrap();
    let log = instance.validation_log().unwrap();
    let adapter = instance.default_adapter().unwrap();
    let d = adapter
        .request_device(&DeviceDescriptor {
            required_features: adapter.features() & features,
            required_limits: adapter.limits().clone(),
            ..Default::default()
        })
        .unwrap();
    (d, log)
}
