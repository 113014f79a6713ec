//! Runs of queue writes without the queue lock.
//!
//! A run of sequential writes into one buffer (each write starting where the last one
//! ended) is the common shape of many small queue writes. Under the queue lock such a
//! write appends to the last pending write, in the last staging chunk
//! ([`Core::continue_last_write`]); the lock itself (two locked instructions, each waiting
//! for the copy before it to reach its cache line) was most of what such a write cost.
//!
//! So when a write continues the last pending write under the lock, its thread is given
//! a **grant**: the right to append the run's next writes to that pending write, in that
//! chunk, without the lock, up to a room fixed when granted (the chunk's free bytes, the
//! staging budget and the buffer's end, whichever comes first). The thread keeps what it
//! needs in a thread-local [`Run`]; the queue keeps the grant's [`Gate`]. Whoever takes
//! the queue lock next closes the gate first ([`QueueLock::lock`]): that waits out a write
//! in progress through it and folds what the run appended into the pending write and the
//! staging counters, so everything done under the lock sees the writes as if each had
//! taken the lock itself. A write that cannot go on (another buffer or offset, no room
//! left, a closed gate, another device) takes the lock as before.
//!
//! A write through a grant checks what the locked path checks of a continuing write: the
//! device is not lost (the caller checks that first, for every write), the same buffer
//! and the next offset (so the buffer's usage, alignment and liveness were checked when
//! the run was granted: destroying the buffer or mapping it takes the queue lock, which
//! closes the gate), and a size that is a non-zero multiple of 4 within the room.

use super::queue::QueueState;
use super::{Core, lock};
use crate::handle::Buffer;
use crate::native::{Gate, Raise, Window, heavy_fence_ready};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard};
use vigil_hal::{Api, Device as _};

/// The queue's state behind its lock. Taking the lock closes the write grant, if any.
pub(crate) struct QueueLock<A: Api> {
    state: Mutex<QueueState<A>>,
}

impl<A: Api> QueueLock<A> {
    /// The queue's lock around `state`.
    pub fn new(state: QueueState<A>) -> Self {
        QueueLock {
            state: Mutex::new(state),
        }
    }

    /// Takes the queue lock, closing the write grant first: what its run appended is part
    /// of the last pending write from here on.
    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, QueueState<A>> {
        let mut q = lock(&self.state);
        if q.grant.is_some() {
            q.close_grant();
        }
        q
    }
}

/// A write grant as the queue keeps it: the gate its holder writes through. Dropping it
/// closes the gate (the chunk it names may go after that).
pub(crate) struct Grant(Arc<Gate>);

impl Grant {
    /// Closes the gate, from whichever thread.
    fn close(&self) -> (u64, u64) {
        // On the holder's own thread no write through the gate is in progress (a write
        // in progress holds `RUN` borrowed, so it is not seen here, which only costs the
        // fence a light gate's close runs). Looked up only for a gate that went light.
        self.0.close(|| {
            RUN.try_with(|cell| {
                cell.try_borrow().is_ok_and(|slot| {
                    slot.as_ref()
                        .is_some_and(|run| Arc::ptr_eq(&run.gate, &self.0))
                })
            })
            .unwrap_or(false)
        })
    }
}

impl Drop for Grant {
    fn drop(&mut self) {
        self.close();
    }
}

/// How many writes of a granted run take the gate's locked instruction before the rest
/// take none, where the system has an asymmetric fence (see [`Gate`]): enough that a
/// short run never makes another thread's lock pay that fence's system call.
pub(crate) const LOCKED_RUN_WRITES: u64 = 256;

impl<A: Api> QueueState<A> {
    /// Closes the write grant and folds what its run appended into the last pending write
    /// and the last staging chunk (which are the run's: both change only under the lock,
    /// and taking it closes the grant first).
    #[cold]
    pub(crate) fn close_grant(&mut self) {
        let Some(grant) = self.grant.take() else {
            return;
        };
        let (bytes, writes) = grant.close();
        if bytes == 0 {
            return;
        }
        if let (Some(w), Some(c)) = (
            self.uploads.writes.last_mut(),
            self.uploads.chunks.last_mut(),
        ) {
            w.size = w.size.saturating_add(bytes);
            c.used = c.used.saturating_add(bytes);
        }
        self.staging.queued_bytes = self.staging.queued_bytes.saturating_add(bytes);
        self.staging.merged = self.staging.merged.saturating_add(writes);
    }
}

/// What the thread holding a grant keeps of its run.
struct Run {
    /// The device granting it (ids are never reused).
    device: u32,
    gate: Arc<Gate>,
    buffer: Buffer,
    /// Where in the buffer the run's next write starts.
    next: u64,
    /// Where in the chunk's mapping it goes.
    at: u64,
    /// Bytes the run may still append.
    room: u64,
    /// Bytes and writes appended so far.
    bytes: u64,
    writes: u64,
    /// The count of the run's writes, this one included, at which a write stops taking
    /// the gate's locked instruction: the one at `light_from` tells the gate, those after
    /// it take none (`u64::MAX`: every write takes it).
    light_from: u64,
    window: Window,
}

thread_local! {
    /// This thread's run, if it holds a grant (or held one: a closed gate is found at the
    /// next write).
    static RUN: RefCell<Option<Run>> = const { RefCell::new(None) };
}

impl<A: Api> Core<A> {
    /// Writes `data` at `offset` of `buffer` through this thread's grant: `true` when done,
    /// `false` (nothing written) when the write does not continue the run or the grant is
    /// closed; the caller then takes the queue lock.
    #[inline(always)]
    pub(crate) fn run_write(&self, buffer: Buffer, offset: u64, data: &[u8]) -> bool {
        let size = data.len() as u64;
        RUN.try_with(|cell| {
            let Ok(mut slot) = cell.try_borrow_mut() else {
                return false;
            };
            let Some(run) = slot.as_mut() else {
                return false;
            };
            if run.device != self.id
                || run.buffer != buffer
                || run.next != offset
                || size == 0
                || size % 4 != 0
                || size > run.room
            {
                return false;
            }
            // None of these wraps: `size` is within the room, which is within the
            // chunk, the budget and the buffer.
            let (bytes, writes) = (run.bytes.wrapping_add(size), run.writes.wrapping_add(1));
            // Two copies of the inlined write, so the light one tests nothing more.
            let done = if writes > run.light_from {
                run.window
                    .write(&run.gate, run.at, data, (bytes, writes), Raise::Light)
            } else {
                let raise = if writes == run.light_from {
                    Raise::LockedThenLight
                } else {
                    Raise::Locked
                };
                run.window
                    .write(&run.gate, run.at, data, (bytes, writes), raise)
            };
            if !done {
                // Closed: forget the run (its gate and nothing else).
                *slot = None;
                return false;
            }
            run.next = run.next.wrapping_add(size);
            run.at = run.at.wrapping_add(size);
            run.room = run.room.wrapping_sub(size);
            run.bytes = bytes;
            run.writes = writes;
            true
        })
        .unwrap_or(false)
    }

    /// Grants this thread the run the last pending write ends: called under the queue lock
    /// right after a write continued that pending write (so the write's checks passed and
    /// the pending write and its chunk are the last ones). Nothing is granted when the
    /// chunk's memory needs flushes, or no room is left.
    pub(crate) fn grant_run(&self, q: &mut QueueState<A>) {
        let (Some(w), Some(c)) = (q.uploads.writes.last(), q.uploads.chunks.last()) else {
            return;
        };
        let Some(mapping) = self.hal.mapping(&c.buffer).filter(|m| m.coherent) else {
            return;
        };
        let next = w.dst_offset.saturating_add(w.size);
        let room = c
            .size
            .saturating_sub(c.used)
            .min(q.staging.room())
            .min(w.dst.size.saturating_sub(next));
        if room < 4 {
            return;
        }
        let gate = Arc::new(Gate::open());
        // The window's contract: the chunk's memory is coherent (checked above); the chunk
        // is the last one and stays mapped while the grant is held, with nothing else
        // appended to it: the queue keeps the grant (`q.grant`) and closes its gate before
        // anything changes the chunk or its pending write, or lets the chunk go (every
        // taker of the queue lock goes through `QueueLock::lock`; dropping the grant closes
        // it too).
        let window = Window::new(mapping);
        let run = Run {
            device: self.id,
            gate: Arc::clone(&gate),
            buffer: w.dst.handle,
            next,
            at: c.used,
            room,
            bytes: 0,
            writes: 0,
            light_from: if heavy_fence_ready() {
                self.seams.locked_run_writes()
            } else {
                u64::MAX
            },
            window,
        };
        let placed = RUN
            .try_with(|cell| match cell.try_borrow_mut() {
                Ok(mut slot) => {
                    *slot = Some(run);
                    true
                }
                Err(_) => false,
            })
            .unwrap_or(false);
        if placed {
            q.grant = Some(Grant(gate));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::native::{Gate, Raise, Window, heavy_fence_ready};
    use std::ptr::NonNull;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A thread writing pieces through a gate while another closes it at a varying moment:
    /// what the close reports is exactly what the writer landed, and nothing lands after.
    #[test]
    fn a_closed_gate_counts_every_write_and_admits_none_after() {
        close_mid_run(u64::MAX);
    }

    /// The same when the writer's writes after its sixteenth take no locked instruction
    /// (the closing thread runs the asymmetric fence). Linux has that fence; elsewhere
    /// the writes stay locked and the test is the one above.
    #[test]
    fn a_closed_light_gate_counts_every_write_and_admits_none_after() {
        #[cfg(target_os = "linux")]
        assert!(
            heavy_fence_ready(),
            "membarrier's private expedited fence registers on Linux"
        );
        close_mid_run(if heavy_fence_ready() { 16 } else { u64::MAX });
    }

    /// Writes of every length from 0 to 80 bytes through a window (the lengths up to 64
    /// take the inline copies from either end, the rest `memcpy`), each at odd and even
    /// offsets into a zeroed region: exactly its bytes land, nothing around them changes.
    #[test]
    #[allow(clippy::arithmetic_side_effects)] // small constants: nothing here can overflow
    fn window_writes_of_every_small_length_land_exactly() {
        let gate = Gate::open();
        for n in 0..=80usize {
            for at in [0u64, 4, 12, 60] {
                let mut memory = vec![0u8; 192];
                let len = memory.len() as u64;
                let Some(ptr) = NonNull::new(memory.as_mut_ptr()) else {
                    panic!("a vector's pointer is not null");
                };
                let window = Window::new(vigil_hal::Mapping {
                    ptr,
                    len,
                    coherent: true,
                });
                let data: Vec<u8> = (0..n).map(|i| (i as u8).wrapping_mul(7) | 1).collect();
                assert!(window.write(&gate, at, &data, (0, 0), Raise::Locked));
                let at = at as usize;
                assert!(memory[..at].iter().all(|&b| b == 0), "{n} bytes at {at}");
                assert_eq!(&memory[at..at + n], &data[..], "{n} bytes at {at}");
                assert!(
                    memory[at + n..].iter().all(|&b| b == 0),
                    "{n} bytes at {at}"
                );
            }
        }
    }

    /// 300 rounds of a writer appending 64-byte pieces through a gate, `locked` of them
    /// with the locked instruction (the last of those telling the gate), while this
    /// thread closes the gate a varying while after the writes began.
    #[allow(clippy::arithmetic_side_effects)] // small constants: nothing here can overflow
    fn close_mid_run(locked: u64) {
        const PIECE: usize = 64;
        const PIECES: usize = 4096;
        let mut light_closes = 0u32;
        for round in 0..300u32 {
            let mut memory = vec![0u8; PIECE * PIECES];
            let (addr, len) = (memory.as_mut_ptr() as usize, memory.len() as u64);
            let gate = Gate::open();
            let started = AtomicBool::new(false);
            let (landed, closed) = std::thread::scope(|s| {
                let writer = s.spawn(|| {
                    let Some(ptr) = NonNull::new(addr as *mut u8) else {
                        return 0u64;
                    };
                    let window = Window::new(vigil_hal::Mapping {
                        ptr,
                        len,
                        coherent: true,
                    });
                    let mut n = 0u64;
                    while n < PIECES as u64 {
                        let piece = [(n % 255 + 1) as u8; PIECE];
                        let at = n * PIECE as u64;
                        let raise = match locked.saturating_sub(n) {
                            0 => Raise::Light,
                            1 => Raise::LockedThenLight,
                            _ => Raise::Locked,
                        };
                        if !window.write(&gate, at, &piece, (at + PIECE as u64, n + 1), raise) {
                            break;
                        }
                        n += 1;
                        started.store(true, Ordering::Release);
                    }
                    n
                });
                // Close once the writer is under way, a varying while later.
                while !started.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
                for _ in 0..round % 300 {
                    std::hint::spin_loop();
                }
                let closed = gate.close(|| false);
                (writer.join().unwrap_or(u64::MAX), closed)
            });
            if landed > locked {
                light_closes += 1;
            }
            assert_eq!(
                closed,
                (landed * PIECE as u64, landed),
                "round {round}: the close saw what landed"
            );
            for (n, piece) in memory.chunks_exact(PIECE).enumerate() {
                let want = if (n as u64) < landed {
                    (n as u64 % 255 + 1) as u8
                } else {
                    0
                };
                assert!(
                    piece.iter().all(|b| *b == want),
                    "round {round}, piece {n} of {landed} landed"
                );
            }
        }
        if locked < PIECES as u64 {
            assert!(
                light_closes > 30,
                "{light_closes} of 300 closes came after the writes went light"
            );
        }
    }
}
