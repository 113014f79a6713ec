//! The device observer sees every accepted submission, write and creation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::gpu;
use std::sync::{Arc, Mutex};
use vigil::observer::{CreationInfo, DeviceObserver, SubmissionInfo, WriteInfo};
use vigil::*;

#[derive(Default)]
struct Log {
    submissions: Mutex<Vec<SubmissionInfo>>,
    writes: Mutex<Vec<WriteInfo>>,
    created: Mutex<Vec<CreationInfo>>,
}

impl DeviceObserver for Log {
    fn submitted(&self, info: &SubmissionInfo) {
        self.submissions.lock().unwrap().push(*info);
    }
    fn wrote(&self, info: &WriteInfo) {
        self.writes.lock().unwrap().push(*info);
    }
    fn created(&self, info: &CreationInfo) {
        self.created.lock().unwrap().push(info.clone());
    }
}

#[test]
fn the_observer_sees_submissions_writes_and_creations() {
    let d = gpu();
    let log = Arc::new(Log::default());
    let observer: Arc<dyn DeviceObserver> = log.clone();
    d.install_observer(observer.clone()).unwrap();
    d.install_observer(observer.clone()).unwrap();
    let other: Arc<dyn DeviceObserver> = Arc::new(Log::default());
    assert_eq!(
        d.install_observer(other.clone()).unwrap_err().kind(),
        ErrorKind::InvalidState
    );
    assert!(
        !d.remove_observer(&other),
        "removing someone else's observer does nothing"
    );
    let b = d
        .create_buffer(&BufferDescriptor {
            label: "watched",
            size: 64,
            usage: BufferUsages::STORAGE | BufferUsages::COPY_DST | BufferUsages::COPY_SRC,
        })
        .unwrap();
    d.write_buffer(b, 0, &[1; 64]).unwrap();
    let mut e = d
        .create_command_encoder(&CommandEncoderDescriptor::default())
        .unwrap();
    e.clear_buffer(b, 0, None).unwrap();
    let serial = d.submit([e.finish().unwrap()]).unwrap();
    assert!(
        log.created
            .lock()
            .unwrap()
            .iter()
            .any(|c| c.kind == "buffer" && c.label == "watched")
    );
    let writes = log.writes.lock().unwrap().clone();
    assert_eq!(writes.len(), 1);
    assert_eq!(
        (writes[0].target, writes[0].bytes),
        (observer::WriteTarget::Buffer(b), 64)
    );
    let subs = log.submissions.lock().unwrap().clone();
    assert_eq!(
        subs.last().map(|s| (s.serial, s.command_buffers)),
        Some((serial, 1))
    );
    assert!(d.remove_observer(&observer));
    d.write_buffer(b, 0, &[2; 64]).unwrap();
    assert_eq!(
        log.writes.lock().unwrap().len(),
        1,
        "a removed observer hears nothing"
    );
    d.install_observer(other).unwrap();
}
