use std::time::Duration;
use vigil::*;

#[inline(never)]
fn record(e: &mut CommandEncoder, src: Buffer, dst: Buffer, n: u64, size: u64) {
    for k in 0..n {
        e.copy_buffer_to_buffer(src, k * size, dst, k * size, size).unwrap();
    }
}

fn main() {
    let n = 200u64;
    let size = 4096u64;
    let kernel = std::env::args().nth(1).is_some_and(|a| a == "kernel");
    let d: Device<DefaultApi> = Device::new_default(&DeviceDescriptor::default()).unwrap();
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let src = d.create_buffer(&BufferDescriptor { label: "src", size: n * size, usage }).unwrap();
    let dst = d.create_buffer(&BufferDescriptor { label: "dst", size: n * size, usage }).unwrap();
    d.seams().copy_by_kernel(if kernel { 16 } else { u64::MAX / 2 }, 0);
    for _ in 0..3 {
        let mut e = d.create_command_encoder(&CommandEncoderDescriptor { label: "copies" }).unwrap();
        record(&mut e, src, dst, n, size);
        let s = d.submit([e.finish().unwrap()]).unwrap();
        d.wait_for_serial_unless_stalled(s, Duration::from_secs(120)).unwrap();
    }
}
