//! CPU time of recording copies: N copies of `SIZE` bytes between two device buffers,
//! through the copy command (seam off) and through vigil's copy kernel (seam armed from
//! 16 bytes), alternated, each timed from the first copy to `finish`, then submitted and
//! waited for (not timed). Prints the median per copy of each.
use std::time::{Duration, Instant};
use vigil::*;

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let size: u64 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(4096);
    let reps = 11;
    let d: Device<DefaultApi> = Device::new_default(&DeviceDescriptor::default()).unwrap();
    println!("device: {}", d.adapter_info().name);
    let usage = BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST;
    let src = d.create_buffer(&BufferDescriptor { label: "src", size: n * size, usage }).unwrap();
    let dst = d.create_buffer(&BufferDescriptor { label: "dst", size: n * size, usage }).unwrap();
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for r in 0..reps * 2 {
        let kernel = r % 2 == 1;
        if kernel {
            d.seams().copy_by_kernel(16, 0);
        } else {
            d.seams().copy_by_kernel(u64::MAX / 2, 0);
        }
        let mut e = d.create_command_encoder(&CommandEncoderDescriptor { label: "copies" }).unwrap();
        let t = Instant::now();
        for k in 0..n {
            e.copy_buffer_to_buffer(src, k * size, dst, k * size, size).unwrap();
        }
        let cb = e.finish().unwrap();
        let took = t.elapsed();
        let s = d.submit([cb]).unwrap();
        d.wait_for_serial_unless_stalled(s, Duration::from_secs(120)).unwrap();
        d.poll().unwrap();
        if r >= 2 {
            times[usize::from(kernel)].push(took.as_secs_f64() * 1e6 / n as f64);
        }
    }
    for (name, mut t) in ["copy command", "kernel"].into_iter().zip(times) {
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("{name}: median {:.3} us per copy recorded (min {:.3}, max {:.3}, {} runs)", t[t.len() / 2], t[0], t[t.len() - 1], t.len());
    }
}
