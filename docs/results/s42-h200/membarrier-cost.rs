// How long Linux's membarrier (private expedited) takes with N other threads of the
// process spinning on their CPUs: what a lock taken on another thread pays to close a
// light write grant. Prints the median of 2,001 calls (ns) for each N.
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
fn mb(cmd: libc::c_long) -> libc::c_long {
    unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0, 0) }
}
fn main() {
    assert_eq!(mb(1 << 4), 0, "register");
    for others in [0usize, 1, 2, 7] {
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            for _ in 0..others {
                s.spawn(|| while !stop.load(Ordering::Relaxed) { std::hint::spin_loop() });
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
            let mut t: Vec<u128> = (0..2001)
                .map(|_| {
                    let a = Instant::now();
                    assert_eq!(mb(1 << 3), 0);
                    a.elapsed().as_nanos()
                })
                .collect();
            t.sort();
            println!(
                "membarrier private expedited, {others} other threads spinning: median {} ns, p10 {} ns, p90 {} ns",
                t[1000], t[200], t[1800]
            );
            stop.store(true, Ordering::Relaxed);
        });
    }
}
